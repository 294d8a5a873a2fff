static char help[] = "The auxiliary-grid AMG (-pc_type auxamg) on P1 finite elements of the Poisson problem -lap u = 1, u = 0 on the\n\
boundary, on unstructured simplex meshes of PETSc's DMPlex (the test problems of its paper): the mesh from the DMPlex\n\
options (e.g. -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16: quadrilaterals or hexahedra, split into\n\
simplices here, since PETSc may have no mesh generator; -disk maps the box [-1,1]^2 onto the unit disk; -tets n makes\n\
the unit cube of n^3 cubes of 6 tetrahedra each, -cavity without its central block [1/4,3/4]^3), its interior\n\
vertices moved by -perturb times the mesh size (quasi-uniform meshes), then -refinements uniform refinements, solved\n\
on each. -grade g -grade_offset a (a mesh of the unit box): each mesh's vertices x moved to x ((a + |x|_inf) / (a +\n\
1))^(g - 1) for its solve, a shape-regular mesh graded toward the corner 0 (a = 0: cells about h^g wide there).\n\
Prints unknowns, iterations, the true residual (-timing: the times); exits non-zero when a solve does not converge.\n\
-pc_type gamg runs PETSc's GAMG on the same matrices for comparison.\n\n";

#include <petscdmplex.h>
#include <petscdmplextransform.h>
#include <petscksp.h>
#include <petscvpatch.h>

/* the vertices on the boundary, in the label "bnd" */
static PetscErrorCode MarkBoundary(DM dm, DMLabel *bnd)
{
  PetscFunctionBeginUser;
  PetscCall(DMCreateLabel(dm, "bnd"));
  PetscCall(DMGetLabel(dm, "bnd", bnd));
  PetscCall(DMPlexMarkBoundaryFaces(dm, 1, *bnd));
  PetscCall(DMPlexLabelComplete(dm, *bnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* interior vertices moved by up to amp times the mesh size h in every direction, by a hash of the vertex's position
   (the same on every rank that holds the vertex) */
static PetscErrorCode Perturb(DM dm, PetscReal amp, PetscReal h)
{
  DMLabel      bnd;
  Vec          cl;
  PetscScalar *c;
  PetscInt     dim, vStart, vEnd;
  PetscSection cs;

  PetscFunctionBeginUser;
  if (amp <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MarkBoundary(dm, &bnd));
  PetscCall(DMGetCoordinateDim(dm, &dim));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArray(cl, &c));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt val, off;
    PetscCall(DMLabelGetValue(bnd, v, &val));
    if (val == 1) continue;
    PetscCall(PetscSectionGetOffset(cs, v, &off));
    {
      PetscReal X[3] = {0, 0, 0};
      for (PetscInt d = 0; d < dim; d++) X[d] = PetscRealPart(c[off + d]);
      for (PetscInt d = 0; d < dim; d++) {
        PetscReal t = PetscSinReal(12.9898 * X[0] + 78.233 * X[1] + 37.719 * X[2] + 11.0 * d) * 43758.5453;
        c[off + d] += amp * h * (2 * (t - PetscFloorReal(t)) - 1);
      }
    }
  }
  PetscCall(VecRestoreArray(cl, &c));
  PetscCall(DMSetCoordinatesLocal(dm, cl));
  PetscCall(DMRemoveLabel(dm, "bnd", NULL)); /* the DM destroys it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P1 stiffness matrix and load vector on the vertices (the global vertex numbering), the Dirichlet rows and columns
   of the boundary vertices replaced by the identity; xy: the owned vertices' coordinates in row order */
static PetscErrorCode Assemble(DM dm, Mat *A, Vec *b, PetscReal **xy, PetscInt *dimout)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  IS                 vnum;
  const PetscInt    *gv;
  PetscInt           dim, cStart, cEnd, vStart, vEnd, nown = 0, rstart, nb = 0, *brows;
  Vec                cl;
  PetscSection       cs;
  const PetscScalar *c;
  DMLabel            bnd;

  PetscFunctionBeginUser;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetVertexNumbering(dm, &vnum));
  PetscCall(ISGetIndices(vnum, &gv));
  for (PetscInt v = 0; v < vEnd - vStart; v++)
    if (gv[v] >= 0) nown++;
  PetscCall(MatCreateAIJ(comm, nown, nown, PETSC_DETERMINE, PETSC_DETERMINE, dim == 2 ? 12 : 40, NULL, dim == 2 ? 12 : 40, NULL, A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatCreateVecs(*A, NULL, b));
  PetscCall(MatGetOwnershipRange(*A, &rstart, NULL));
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArrayRead(cl, &c));
  for (PetscInt cell = cStart; cell < cEnd; cell++) {
    PetscInt   *cl2 = NULL, ncl, nv = 0, vtx[4], rows[4];
    PetscReal   X[4][3], J[3][3], Ji[3][3], det, vol, G[4][3];
    PetscScalar Ke[16], be[4];
    PetscCall(DMPlexGetTransitiveClosure(dm, cell, PETSC_TRUE, &ncl, &cl2));
    for (PetscInt i = 0; i < 2 * ncl; i += 2)
      if (cl2[i] >= vStart && cl2[i] < vEnd) vtx[nv++] = cl2[i];
    PetscCall(DMPlexRestoreTransitiveClosure(dm, cell, PETSC_TRUE, &ncl, &cl2));
    PetscCheck(nv == dim + 1, comm, PETSC_ERR_SUP,
               "ex5 assembles P1 on triangles and tetrahedra, but cell %" PetscInt_FMT " has %" PetscInt_FMT
               " vertices (in 3D, hexahedra split by PETSc's refine_tosimplex are not all tetrahedra): use -tets n, a 2D mesh, or a simplex mesh from a file (-dm_plex_filename)",
               cell, nv);
    for (PetscInt a = 0; a < nv; a++) {
      PetscInt off;
      PetscCall(PetscSectionGetOffset(cs, vtx[a], &off));
      for (PetscInt d = 0; d < dim; d++) X[a][d] = PetscRealPart(c[off + d]);
      rows[a] = gv[vtx[a] - vStart] >= 0 ? gv[vtx[a] - vStart] : -(gv[vtx[a] - vStart] + 1);
    }
    for (PetscInt d = 0; d < dim; d++) /* J[d][e] = X[e+1][d] - X[0][d] */
      for (PetscInt e = 0; e < dim; e++) J[d][e] = X[e + 1][d] - X[0][d];
    if (dim == 2) {
      det      = J[0][0] * J[1][1] - J[0][1] * J[1][0];
      Ji[0][0] = J[1][1] / det;
      Ji[0][1] = -J[0][1] / det;
      Ji[1][0] = -J[1][0] / det;
      Ji[1][1] = J[0][0] / det;
      vol      = PetscAbsReal(det) / 2;
    } else {
      det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) + J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
      for (PetscInt r = 0; r < 3; r++)
        for (PetscInt s = 0; s < 3; s++) Ji[s][r] = (J[(r + 1) % 3][(s + 1) % 3] * J[(r + 2) % 3][(s + 2) % 3] - J[(r + 1) % 3][(s + 2) % 3] * J[(r + 2) % 3][(s + 1) % 3]) / det;
      vol = PetscAbsReal(det) / 6;
    }
    /* grad lambda_{a} (a >= 1) = row a-1 of J^-1; grad lambda_0 = -sum */
    for (PetscInt d = 0; d < dim; d++) G[0][d] = 0;
    for (PetscInt a = 1; a <= dim; a++)
      for (PetscInt d = 0; d < dim; d++) {
        G[a][d] = Ji[a - 1][d];
        G[0][d] -= G[a][d];
      }
    for (PetscInt a = 0; a < nv; a++) {
      be[a] = vol / nv;
      for (PetscInt e = 0; e < nv; e++) {
        PetscReal s = 0;
        for (PetscInt d = 0; d < dim; d++) s += G[a][d] * G[e][d];
        Ke[a * nv + e] = vol * s;
      }
    }
    PetscCall(MatSetValues(*A, nv, rows, nv, rows, Ke, ADD_VALUES));
    PetscCall(VecSetValues(*b, nv, rows, be, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(*b));
  PetscCall(VecAssemblyEnd(*b));
  /* the owned vertices' coordinates and the owned boundary rows */
  PetscCall(MarkBoundary(dm, &bnd));
  PetscCall(PetscMalloc1(PetscMax(nown, 1) * dim, xy));
  PetscCall(PetscMalloc1(PetscMax(nown, 1), &brows));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt g = gv[v - vStart], off, val;
    if (g < 0) continue;
    PetscCall(PetscSectionGetOffset(cs, v, &off));
    for (PetscInt d = 0; d < dim; d++) (*xy)[(g - rstart) * dim + d] = PetscRealPart(c[off + d]);
    PetscCall(DMLabelGetValue(bnd, v, &val));
    if (val == 1) brows[nb++] = g;
  }
  PetscCall(VecRestoreArrayRead(cl, &c));
  PetscCall(ISRestoreIndices(vnum, &gv));
  PetscCall(MatZeroRowsColumns(*A, nb, brows, 1.0, NULL, NULL));
  for (PetscInt i = 0; i < nb; i++) PetscCall(VecSetValue(*b, brows[i], 0.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(*b));
  PetscCall(VecAssemblyEnd(*b));
  PetscCall(PetscFree(brows));
  PetscCall(DMRemoveLabel(dm, "bnd", NULL)); /* the DM destroys it */
  *dimout = dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the mesh's vertices x moved to x ((a + |x|_inf) / (a + 1))^(g - 1) (onto the same unit box, cells shrinking toward
   the corner 0, aspect ratios at most g), or (undo) the saved positions put back */
static PetscErrorCode Grade(DM dm, PetscReal g, PetscReal a, Vec *saved, PetscBool undo)
{
  Vec          cl;
  PetscScalar *c;
  PetscInt     n, cdim;

  PetscFunctionBeginUser;
  if (g == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  if (undo) {
    PetscCall(VecCopy(*saved, cl));
    PetscCall(VecDestroy(saved));
  } else {
    PetscCall(VecDuplicate(cl, saved));
    PetscCall(VecCopy(cl, *saved));
    PetscCall(DMGetCoordinateDim(dm, &cdim));
    PetscCall(VecGetLocalSize(cl, &n));
    PetscCall(VecGetArray(cl, &c));
    for (PetscInt i = 0; i < n; i += cdim) {
      PetscReal s = 0, f;
      for (PetscInt d = 0; d < cdim; d++) s = PetscMax(s, PetscAbsReal(PetscRealPart(c[i + d])));
      f = PetscPowReal((a + s) / (a + 1), g - 1);
      for (PetscInt d = 0; d < cdim; d++) c[i + d] *= f;
    }
    PetscCall(VecRestoreArray(cl, &c));
  }
  PetscCall(DMSetCoordinatesLocal(dm, cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the unit cube cut into n^3 cubes, each split into 6 tetrahedra along its main diagonal (Kuhn's triangulation:
   conforming, shape-regular, all of one orientation); cavity: without the cubes of the central block [1/4, 3/4]^3
   (n a multiple of 4), whose faces become boundary. Made on rank 0 and distributed. */
static PetscErrorCode CreateKuhnMesh(MPI_Comm comm, PetscInt n, PetscBool cavity, DM *dm)
{
  PetscMPIInt rank;
  PetscInt    nc = 0, nv = 0, *cells = NULL, *id = NULL, N = n + 1;
  PetscReal  *xyz = NULL;
  DM          dist;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tets needs at least 1 cube per direction, got %" PetscInt_FMT, n);
  PetscCheck(!cavity || (n % 4 == 0), comm, PETSC_ERR_ARG_WRONG, "-cavity needs -tets a multiple of 4 (the cavity is the central block [1/4, 3/4]^3), got %" PetscInt_FMT, n);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const PetscInt perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    PetscCall(PetscMalloc2(6 * 4 * n * n * n, &cells, N * N * N, &id));
    for (PetscInt i = 0; i < N * N * N; i++) id[i] = -1;
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt i = 0; i < n; i++) {
          const PetscInt c[3] = {i, j, k};
          PetscBool      hole = cavity;
          for (PetscInt d = 0; d < 3; d++) hole = (PetscBool)(hole && c[d] >= n / 4 && c[d] < 3 * n / 4);
          if (hole) continue;
          for (PetscInt t = 0; t < 6; t++) {
            PetscInt p[3] = {0, 0, 0}, v[4];
            for (PetscInt a = 0; a < 4; a++) { /* the path 000 -> 111 along the axes perm[t] */
              if (a > 0) p[perm[t][a - 1]] = 1;
              v[a] = (c[2] + p[2]) * N * N + (c[1] + p[1]) * N + (c[0] + p[0]);
            }
            if (t == 0 || t == 3 || t == 4) { /* even permutations: swap two vertices, PETSc's orientation for all */
              PetscInt w = v[1];
              v[1]       = v[2];
              v[2]       = w;
            }
            for (PetscInt a = 0; a < 4; a++) {
              if (id[v[a]] < 0) id[v[a]] = nv++;
              cells[4 * nc + a] = id[v[a]];
            }
            nc++;
          }
        }
    PetscCall(PetscMalloc1(3 * nv, &xyz));
    for (PetscInt g = 0; g < N * N * N; g++)
      if (id[g] >= 0) {
        xyz[3 * id[g] + 0] = (PetscReal)(g % N) / n;
        xyz[3 * id[g] + 1] = (PetscReal)((g / N) % N) / n;
        xyz[3 * id[g] + 2] = (PetscReal)(g / (N * N)) / n;
      }
  }
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, nc, nv, 4, PETSC_TRUE, cells, 3, xyz, dm));
  PetscCall(PetscFree2(cells, id));
  PetscCall(PetscFree(xyz));
  PetscCall(DMPlexDistribute(*dm, 0, NULL, &dist));
  if (dist) {
    PetscCall(DMDestroy(dm));
    *dm = dist;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        dm;
  PetscInt  refinements = 2, prev = -1, tets = 0;
  PetscReal perturb = 0.2, rtol = 1e-8, h0, grade = 1, gradeoff = 0;
  PetscBool failed = PETSC_FALSE, timing = PETSC_FALSE, disk = PETSC_FALSE, cavity = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex5 options", NULL);
  PetscCall(PetscOptionsInt("-refinements", "Uniform refinements after the first solve (one solve each)", NULL, refinements, &refinements, NULL));
  PetscCall(PetscOptionsReal("-perturb", "Move interior vertices by up to this fraction of the mesh size", NULL, perturb, &perturb, NULL));
  PetscCall(PetscOptionsReal("-rtol", "Relative residual of the stopping test", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsBool("-disk", "2D: map the box [-1,1]^2 onto the unit disk (x sqrt(1 - y^2/2), y sqrt(1 - x^2/2))", NULL, disk, &disk, NULL));
  PetscCall(PetscOptionsBool("-timing", "Print the set-up and solve times", NULL, timing, &timing, NULL));
  PetscCall(PetscOptionsInt("-tets", "3D: the unit cube in n^3 cubes of 6 tetrahedra each (instead of the DMPlex options)", NULL, tets, &tets, NULL));
  PetscCall(PetscOptionsBool("-cavity", "With -tets: without the central block [1/4, 3/4]^3 (a cavity)", NULL, cavity, &cavity, NULL));
  PetscCall(PetscOptionsReal("-grade", "Each mesh graded toward the corner 0 for its solve: x moved to x ((a + |x|_inf) / (a + 1))^(g - 1), g in [1, 4] (1: none)", NULL, grade, &grade, NULL));
  PetscCall(PetscOptionsReal("-grade_offset", "a of -grade (0: cells about h^g wide at the corner)", NULL, gradeoff, &gradeoff, NULL));
  PetscOptionsEnd();
  PetscCheck(grade >= 1 && grade <= 4, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-grade must be in [1, 4], not %g", (double)grade);
  PetscCheck(gradeoff >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-grade_offset must not be negative, not %g", (double)gradeoff);
  PetscCheck(grade == 1 || !disk, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-grade maps the unit box: not with -disk");
  PetscCheck(!cavity || tets, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-cavity goes with -tets n");
  PetscCheck(refinements >= 0 && refinements <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-refinements must be in 0..8, got %" PetscInt_FMT, refinements);
  PetscCheck(rtol > 0 && rtol < 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rtol %g: give a relative residual between 0 and 1, e.g. 1e-8", (double)rtol);
  PetscCheck(perturb >= 0 && perturb < 0.5, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-perturb %g: give a fraction of the mesh size in [0, 0.5) (larger moves can tangle the cells)", (double)perturb);
  if (tets) {
    PetscCall(CreateKuhnMesh(PETSC_COMM_WORLD, tets, cavity, &dm));
    PetscCall(DMSetFromOptions(dm)); /* e.g. -dm_view */
  } else {
    PetscCall(DMCreate(PETSC_COMM_WORLD, &dm));
    PetscCall(DMSetType(dm, DMPLEX));
    PetscCall(DMSetFromOptions(dm));
  }
  {
    PetscBool simplex;
    PetscCall(DMPlexIsSimplex(dm, &simplex));
    if (!simplex) { /* quadrilaterals or hexahedra (no mesh generator needed) split into simplices */
      DM sdm;
      PetscCall(DMPlexSetTransformType(dm, DMPLEXREFINETOSIMPLEX));
      PetscCall(DMRefine(dm, PETSC_COMM_WORLD, &sdm));
      PetscCall(DMDestroy(&dm));
      dm = sdm;
    }
  }
  PetscCall(DMPlexSetTransformType(dm, DMPLEXREFINEREGULAR)); /* the refinements below */
  {
    PetscInt  dim, cStart, cEnd, N;
    PetscReal vol = 1;
    PetscCall(DMGetDimension(dm, &dim));
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    N = cEnd - cStart;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &N, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    h0 = PetscPowReal(vol / (PetscReal)N, 1.0 / dim); /* about the edge length (the domain's size is of order 1) */
  }
  if (disk) { /* the square onto the disk: every rank maps its copies of the vertices alike */
    Vec          cl;
    PetscScalar *c;
    PetscInt     n, cdim;
    PetscCall(DMGetCoordinateDim(dm, &cdim));
    PetscCheck(cdim == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-disk maps a 2D box: use -dm_plex_dim 2 -dm_plex_box_lower -1,-1 -dm_plex_box_upper 1,1");
    PetscCall(DMGetCoordinatesLocal(dm, &cl));
    PetscCall(VecGetLocalSize(cl, &n));
    PetscCall(VecGetArray(cl, &c));
    for (PetscInt i = 0; i < n; i += 2) {
      PetscReal x = PetscRealPart(c[i]), y = PetscRealPart(c[i + 1]);
      c[i]     = x * PetscSqrtReal(1 - y * y / 2);
      c[i + 1] = y * PetscSqrtReal(1 - x * x / 2);
    }
    PetscCall(VecRestoreArray(cl, &c));
    PetscCall(DMSetCoordinatesLocal(dm, cl));
  }
  PetscCall(Perturb(dm, perturb, h0));
  for (PetscInt r = 0; r <= refinements; r++) {
    Mat                A;
    Vec                b, x, res;
    KSP                ksp;
    PC                 pc;
    PetscReal         *xy, nr, nb;
    PetscInt           dim = 0, its, N;
    KSPConvergedReason reason;
    PetscLogDouble     t0, t1, t2;

    {
      Vec saved = NULL; /* the refinements start from the ungraded mesh: every level is the graded map of a uniform one */
      PetscCall(Grade(dm, grade, gradeoff, &saved, PETSC_FALSE));
      PetscCall(Assemble(dm, &A, &b, &xy, &dim));
      PetscCall(Grade(dm, grade, gradeoff, &saved, PETSC_TRUE));
    }
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecDuplicate(b, &res));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPFCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, rtol, PETSC_CURRENT, PETSC_CURRENT, 500));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCAUXAMG));
    PetscCall(KSPSetFromOptions(ksp));
    {
      PetscInt m;
      PetscCall(MatGetLocalSize(A, &m, NULL));
      PetscCall(PCSetCoordinates(pc, dim, m, xy));
    }
    PetscCall(PetscFree(xy));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscTime(&t1));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscTime(&t2));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatResidual(A, b, x, res));
    PetscCall(VecNorm(res, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    PetscCall(VecGetSize(b, &N));
    if (nb == 0) nb = 1; /* every vertex on the boundary (a coarse mesh with a cavity): b = 0, the residual absolute */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D P1, %" PetscInt_FMT " unknowns: %" PetscInt_FMT " iterations (%s), true relative residual %.1e\n", dim, N, its, KSPConvergedReasons[reason], (double)(nr / nb)));
    if (timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  time: set-up %.3f s, solve %.3f s\n", (double)(t1 - t0), (double)(t2 - t1)));
    if (reason < 0 || nr > 10 * rtol * nb) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "ex5: the solve did not converge (%s after %" PetscInt_FMT " iterations, relative residual %.2e)\n", KSPConvergedReasons[reason], its, (double)(nr / nb)));
      failed = PETSC_TRUE;
    }
    if (prev >= 0 && its > prev + 4) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  (iterations grew from %" PetscInt_FMT ")\n", prev));
    prev = its;
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&res));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    if (failed) break;
    if (r < refinements) {
      DM rdm;
      PetscCall(DMRefine(dm, PETSC_COMM_WORLD, &rdm));
      PetscCall(DMDestroy(&dm));
      dm = rdm;
    }
  }
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}

/*TEST

  test:
    suffix: square
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16 -refinements 2

  test:
    suffix: square_np2
    nsize: 2
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16 -refinements 2

  test:
    suffix: tets
    args: -tets 4 -refinements 2

  test:
    suffix: cavity_np2
    nsize: 2
    args: -tets 8 -cavity -refinements 1

  test:
    suffix: cavity_odd
    args: -tets 6 -cavity
    expect_error: -cavity needs -tets a multiple of 4

  # meshes graded toward a corner (2D: cells about h^2 wide there): the region tree keeps the counts nearly flat (2D 13, 17,
  # 18, 20 from 289 to 16641 unknowns, the uniform grid 17, 25, 33, 45; 3D 11, 18, 24, the uniform grid 13, 21, 31)
  test:
    suffix: graded_tree
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16 -refinements 3 -grade 2 -grade_offset 0 -pc_auxamg_tree adaptive -pc_auxamg_check_galerkin

  # the default (-pc_auxamg_tree auto) takes the region tree there by itself
  test:
    suffix: graded_auto
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16 -refinements 3 -grade 2 -grade_offset 0 -pc_auxamg_check_galerkin
    output_file: ex5_graded_tree

  test:
    suffix: graded_auto_np3
    nsize: 3
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16 -refinements 3 -grade 2 -grade_offset 0 -pc_auxamg_check_galerkin

  # the tree with the colored Gauss-Seidel (a greedy coloring of the cells' graph), as on the GPU
  test:
    suffix: graded_tree_colored
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 16,16 -refinements 3 -grade 2 -grade_offset 0 -pc_auxamg_tree adaptive -pc_auxamg_smoother colored

  test:
    suffix: graded_tree_tets
    args: -tets 8 -refinements 2 -grade 2 -grade_offset 0.2 -pc_auxamg_tree adaptive

  test:
    suffix: grade_out_of_range
    args: -tets 2 -refinements 0 -grade 5
    expect_error: -grade must be in [1, 4]

  test:
    suffix: disk_gamg
    args: -dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 24,24 -dm_plex_box_lower -1,-1 -dm_plex_box_upper 1,1 -disk -refinements 1 -pc_type gamg

TEST*/
