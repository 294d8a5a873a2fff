/*
  Output of DMQBOX vectors: VecView in natural (rank-independent) order, and legacy VTK output of a solution.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscdmda.h>

/* A copy of g in natural (lexicographic over the whole box) order, on the host */
static PetscErrorCode DMQBoxCreateNaturalVector(DM dm, Vec g, Vec *nat)
{
  DM da;

  PetscFunctionBegin;
  if (((DM_QBox *)dm->data)->dg || DMQBoxGatheredOnOne_Private(dm)) { /* one rank: the global order is the lexicographic one of the nodes */
    PetscInt    n;
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    PetscCheck(size == 1 || DMQBoxGatheredOnOne_Private(dm), PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "VecView() of a discontinuous DMQBOX vector in natural order runs on one MPI rank so far: view it with VecGetArray() per rank");
    PetscCall(VecGetLocalSize(g, &n));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)g), nat));
    PetscCall(VecSetSizes(*nat, n, PETSC_DETERMINE));
    PetscCall(VecSetType(*nat, VECSTANDARD));
    PetscCall(VecCopy(g, *nat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
  PetscCall(DMDACreateNaturalVector(da, nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, g, INSERT_VALUES, *nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, g, INSERT_VALUES, *nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxVecViewVTK - Writes a `DMQBOX` vector as a legacy VTK rectilinear grid (ParaView opens it)

  Collective

  Input Parameters:
+ dm       - the `DMQBOX`
. v        - a global vector of dm
- filename - the file to write (".vtk")

  Level: beginner

  Note:
  The Q_k nodes form a tensor-product grid, so the file holds every node as a point of a
  rectilinear grid: each cell appears as k^d linear sub-cells. `VecView()` with a
  `PETSCVIEWERVTK` whose file ends in ".vtk" (e.g. `-vec_view vtk:u.vtk`) calls this function.

.seealso: `DMQBOX`, `VecView()`
@*/
PetscErrorCode DMQBoxVecViewVTK(DM dm, Vec v, const char filename[])
{
  DM_QBox    *q;
  Vec         nat, seq;
  VecScatter  sc;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxVecViewVTK"));
  q = (DM_QBox *)dm->data;
  PetscCall(DMQBoxCreateNaturalVector(dm, v, &nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, &seq));
  PetscCall(VecScatterBegin(sc, nat, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  if (rank == 0) {
    FILE              *fp;
    const PetscScalar *a;
    const char        *name, *axis[3] = {"X", "Y", "Z"};
    PetscInt           nn[3] = {1, 1, 1}, ntot;

    for (PetscInt d = 0; d < q->dim; d++) nn[d] = q->cells[d] * q->degree + 1;
    ntot = nn[0] * nn[1] * nn[2];
    PetscCall(PetscObjectGetName((PetscObject)v, &name));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, filename, "w", &fp));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "# vtk DataFile Version 3.0\npetsc-vpatch DMQBOX Q_%" PetscInt_FMT " field %s\nASCII\nDATASET %s\n", q->degree, name, q->map ? "STRUCTURED_GRID" : "RECTILINEAR_GRID"));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "DIMENSIONS %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", nn[0], nn[1], nn[2]));
    if (q->map) { /* a mapped box: every node's physical point */
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "POINTS %" PetscInt_FMT " double\n", ntot));
      for (PetscInt pz = 0; pz < nn[2]; pz++)
        for (PetscInt py = 0; py < nn[1]; py++)
          for (PetscInt px = 0; px < nn[0]; px++) {
            PetscReal X[3] = {q->coords1d[0][px], q->coords1d[1][py], q->dim == 3 ? q->coords1d[2][pz] : 0.0}, x[3] = {0, 0, 0};
            PetscCall(DMQBoxMapPoint(dm, X, x));
            PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.15g %.15g %.15g\n", (double)x[0], (double)x[1], (double)x[2]));
          }
    } else
      for (PetscInt d = 0; d < 3; d++) {
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s_COORDINATES %" PetscInt_FMT " double\n", axis[d], nn[d]));
        for (PetscInt i = 0; i < nn[d]; i++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.15g\n", d < q->dim ? (double)q->coords1d[d][i] : 0.0));
      }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "POINT_DATA %" PetscInt_FMT "\nSCALARS %s double 1\nLOOKUP_TABLE default\n", ntot, name));
    PetscCall(VecGetArrayRead(seq, &a));
    for (PetscInt i = 0; i < ntot; i++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.15g\n", (double)PetscRealPart(a[i])));
    PetscCall(VecRestoreArrayRead(seq, &a));
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  }
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&seq));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecView_QBox_Private(Vec v, PetscViewer viewer)
{
  DM        dm;
  PetscBool isvtk;

  PetscFunctionBegin;
  PetscCall(VecGetDM(v, &dm));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERVTK, &isvtk));
  if (isvtk) {
    const char *filename;
    PetscBool   legacy;

    PetscCall(PetscViewerFileGetName(viewer, &filename));
    PetscCall(PetscStrendswith(filename, ".vtk", &legacy));
    PetscCheck(legacy, PetscObjectComm((PetscObject)v), PETSC_ERR_SUP, "DMQBOX writes legacy VTK files: name the file with the extension .vtk, not %s", filename);
    PetscCall(DMQBoxVecViewVTK(dm, v, filename));
  } else {
    Vec         nat;
    const char *name;

    PetscCall(DMQBoxCreateNaturalVector(dm, v, &nat));
    if (((PetscObject)v)->name) { /* a name given by the user (none made up from the address) */
      PetscCall(PetscObjectGetName((PetscObject)v, &name));
      PetscCall(PetscObjectSetName((PetscObject)nat, name));
    }
    PetscCall(VecView(nat, viewer));
    PetscCall(VecDestroy(&nat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
