static char help[] = "Checks the DMQBOX vector exchange and layout on any number of ranks: DMGlobalToLocal() fills\n\
every ghosted node with its global value, DMGlobalToLocal() with ADD, DMLocalToGlobal() with INSERT and ADD, the local-to-global\n\
mapping, and DMGetCoordinates() (present only with -dm_qbox_coordinates). On one rank the exchange is a copy\n\
(no inner DMDA); on several ranks it is the DMDA's.\n\n";

#include <petscvpatch.h>
#include <petscvpatch/private/qboximpl.h> /* the exchanges' transport */

/* distinct values at distinct nodes, >= 1 on the box [0,1]^d */
static PetscErrorCode Linear(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)du;
  (void)ctx;
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u += (PetscScalar)((d + 1) * x[d] + 7 * d * x[d] * x[d]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt               dim = 3, cells[3] = {3, 4, 2}, ncells = 3, k = 2, ownc[3], cellstart[3], gs[3] = {0, 0, 0}, gm[3] = {1, 1, 1}, os[3] = {0, 0, 0}, om[3] = {1, 1, 1}, nloc, nglob, rstart, idx, gidx, mult = 0, multall, nlall;
  const PetscReal       *c1[3];
  PetscInt               n1[3];
  DM                     dm;
  Vec                    g, g2, l, coords;
  const PetscScalar     *a, *b;
  PetscMPIInt            size;
  PetscBool              wantcoords = PETSC_FALSE;
  ISLocalToGlobalMapping ltog;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* no PetscVPatchInitializePackage(): DMQBoxCreate() registers the package itself, as PETSc's constructors do */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  {
    PetscInt nd = 1;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-degrees", &k, &nd, NULL)); /* one degree here */
  }
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_coordinates", &wantcoords, NULL));
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMQBoxGetOwnedCells(dm, cellstart, ownc));
  for (PetscInt d = 0; d < dim; d++) {
    PetscInt M = cells[d] * k + 1;

    PetscCall(DMQBoxGetNodeCoordinates1D(dm, d, &c1[d], &n1[d]));
    PetscCheck(n1[d] == M, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " nodes in direction %" PetscInt_FMT ", expected %" PetscInt_FMT, n1[d], d, M);
    os[d] = cellstart[d] * k; /* owned nodes: the cells' first k per cell, and the last node of the box */
    om[d] = ownc[d] * k + (cellstart[d] + ownc[d] == cells[d] ? 1 : 0);
    gs[d] = PetscMax(os[d] - k, 0); /* ghosted: k more on each side inside the box */
    gm[d] = PetscMin(os[d] + om[d] + k, M) - gs[d];
  }

  { /* -expect_max_owned_cells n: the most cells any rank owns (the partition's balance) */
    PetscInt expect = -1, mine = ownc[0] * ownc[1] * (dim == 3 ? ownc[2] : 1), most;

    PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_max_owned_cells", &expect, NULL));
    PetscCallMPI(MPIU_Allreduce(&mine, &most, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCheck(expect < 0 || most == expect, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the most cells a rank owns: %" PetscInt_FMT ", expected %" PetscInt_FMT, most, expect);
  }
  { /* -expect_stages n1,n2,...: the processes that own each coarser level of the hierarchy (DMCoarsen() down to the
       coarsest), gathered in stages (-dm_qbox_gather_stage) */
    PetscInt  expect[16], n = 16, levels;
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-expect_stages", expect, &n, &set));
    if (set) {
      DM c = dm;
      PetscCall(DMQBoxGetMaxLevels(dm, &levels));
      PetscCheck(n == levels - 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the hierarchy has %" PetscInt_FMT " coarser levels, %" PetscInt_FMT " expected", levels - 1, n);
      PetscCall(PetscObjectReference((PetscObject)c));
      for (PetscInt l = 0; l < n; l++) {
        DM              cc;
        const PetscInt *p;
        PetscCall(DMCoarsen(c, PETSC_COMM_WORLD, &cc));
        PetscCall(DMDestroy(&c));
        c = cc;
        p = ((DM_QBox *)c->data)->procs;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "level %" PetscInt_FMT " below: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells on %" PetscInt_FMT " processes (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ")\n", l + 1,
                              ((DM_QBox *)c->data)->cells[0], ((DM_QBox *)c->data)->cells[1], ((DM_QBox *)c->data)->cells[2], p[0] * p[1] * p[2], p[0], p[1], p[2]));
        PetscCheck(p[0] * p[1] * p[2] == expect[l], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "level %" PetscInt_FMT " below the finest is on %" PetscInt_FMT " processes, expected %" PetscInt_FMT, l + 1, p[0] * p[1] * p[2], expect[l]);
      }
      PetscCall(DMDestroy(&c));
    }
  }
  { /* -expect_grid px,py,pz: the process grid (the default choice, or -dm_qbox_procs) */
    PetscInt  expect[3] = {0, 0, 0}, n = 3;
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-expect_grid", expect, &n, &set));
    if (set) {
      const PetscInt *procs = ((DM_QBox *)dm->data)->procs;
      PetscCheck(n == 3 && procs[0] == expect[0] && procs[1] == expect[1] && procs[2] == expect[2], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "process grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, procs[0], procs[1], procs[2], expect[0], expect[1], expect[2]);
    }
  }
  PetscCall(DMCreateGlobalVector(dm, &g));
  PetscCall(VecDuplicate(g, &g2));
  PetscCall(DMCreateLocalVector(dm, &l));
  PetscCall(VecGetLocalSize(g, &nglob));
  PetscCall(VecGetLocalSize(l, &nloc));
  PetscCheck(nglob == om[0] * om[1] * om[2] && nloc == gm[0] * gm[1] * gm[2], PETSC_COMM_SELF, PETSC_ERR_PLIB, "local sizes %" PetscInt_FMT " (global vector), %" PetscInt_FMT " (local vector), expected %" PetscInt_FMT ", %" PetscInt_FMT, nglob, nloc,
             om[0] * om[1] * om[2], gm[0] * gm[1] * gm[2]);
  PetscCall(DMQBoxProjectFunction(dm, Linear, NULL, g));

  /* global to local: every ghosted node holds the function at its coordinates */
  PetscCall(VecSet(l, -1.0));
  PetscCall(DMGlobalToLocal(dm, g, INSERT_VALUES, l));
  PetscCall(VecGetArrayRead(l, &a));
  for (PetscInt kz = 0; kz < gm[2]; kz++)
    for (PetscInt j = 0; j < gm[1]; j++)
      for (PetscInt i = 0; i < gm[0]; i++) {
        PetscReal   x[3] = {c1[0][gs[0] + i], c1[1][gs[1] + j], dim == 3 ? c1[2][gs[2] + kz] : 0};
        PetscScalar u;

        PetscCall(Linear(dim, x, &u, NULL, NULL));
        idx = (kz * gm[1] + j) * gm[0] + i;
        PetscCheck(PetscAbsScalar(a[idx] - u) <= 1e-14 * PetscAbsScalar(u), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMGlobalToLocal: local node (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") holds %g, expected %g", i, j, kz,
                   (double)PetscRealPart(a[idx]), (double)PetscRealPart(u));
      }
  PetscCall(VecRestoreArrayRead(l, &a));

  /* global to local, ADD: l + g = 2 l */
  {
    Vec       l2;
    PetscReal err;

    PetscCall(VecDuplicate(l, &l2));
    PetscCall(VecCopy(l, l2));
    PetscCall(DMGlobalToLocal(dm, g, ADD_VALUES, l2));
    PetscCall(VecAXPY(l2, -2.0, l));
    PetscCall(VecNorm(l2, NORM_INFINITY, &err));
    PetscCheck(err <= 1e-14, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMGlobalToLocal(ADD_VALUES) differs from twice the local vector by %g", (double)err);
    PetscCall(VecDestroy(&l2));
  }

  /* local to global, INSERT: the owned values come back */
  {
    PetscReal err;

    PetscCall(VecSet(g2, 0.0));
    PetscCall(DMLocalToGlobal(dm, l, INSERT_VALUES, g2));
    PetscCall(VecAXPY(g2, -1.0, g));
    PetscCall(VecNorm(g2, NORM_INFINITY, &err));
    PetscCheck(err <= 1e-14, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMLocalToGlobal(INSERT_VALUES) differs from the global vector by %g", (double)err);
  }

  /* local to global, ADD into g: each owned node gets its value times the number of ranks whose ghosted box holds it;
     those counts are whole, 1 on one rank, at most 2^dim, and sum to the local sizes over all ranks */
  PetscCall(VecCopy(g, g2));
  PetscCall(DMLocalToGlobal(dm, l, ADD_VALUES, g2));
  PetscCall(VecGetArrayRead(g, &a));
  PetscCall(VecGetArrayRead(g2, &b));
  for (PetscInt i = 0; i < nglob; i++) {
    PetscReal r = PetscRealPart(b[i] / a[i]) - 1, rr = PetscFloorReal(r + 0.5);

    PetscCheck(PetscAbsReal(r - rr) < 1e-12 && rr >= 1 && rr <= (1 << dim) && (size > 1 || rr == 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMLocalToGlobal(ADD_VALUES): owned node %" PetscInt_FMT " counted %g times", i, (double)r);
    mult += (PetscInt)rr;
  }
  PetscCall(VecRestoreArrayRead(g2, &b));
  PetscCall(VecRestoreArrayRead(g, &a));
  PetscCallMPI(MPIU_Allreduce(&mult, &multall, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&nloc, &nlall, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(multall == nlall, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMLocalToGlobal(ADD_VALUES) counted %" PetscInt_FMT " local entries, the local vectors have %" PetscInt_FMT, multall, nlall);

  /* local-to-global mapping: the first owned node is the first row of this rank */
  PetscCall(DMGetLocalToGlobalMapping(dm, &ltog));
  PetscCall(VecGetOwnershipRange(g, &rstart, NULL));
  idx = ((os[2] - gs[2]) * gm[1] + (os[1] - gs[1])) * gm[0] + (os[0] - gs[0]);
  PetscCall(ISLocalToGlobalMappingApply(ltog, 1, &idx, &gidx));
  PetscCheck(gidx == rstart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "local-to-global mapping: the first owned node maps to %" PetscInt_FMT ", expected %" PetscInt_FMT, gidx, rstart);

  /* coordinates: only when asked for, then (x, y[, z]) per owned node */
  PetscCall(DMGetCoordinates(dm, &coords));
  PetscCheck(!coords == !wantcoords, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMGetCoordinates() gave %s with -dm_qbox_coordinates %s", coords ? "coordinates" : "none", wantcoords ? "true" : "false");
  if (coords) {
    PetscCall(VecGetArrayRead(coords, &a));
    idx = 0;
    for (PetscInt kz = 0; kz < om[2]; kz++)
      for (PetscInt j = 0; j < om[1]; j++)
        for (PetscInt i = 0; i < om[0]; i++, idx++) {
          PetscInt p[3] = {os[0] + i, os[1] + j, os[2] + kz};

          for (PetscInt d = 0; d < dim; d++)
            PetscCheck(a[idx * dim + d] == c1[d][p[d]], PETSC_COMM_SELF, PETSC_ERR_PLIB, "coordinate %" PetscInt_FMT " of owned node %" PetscInt_FMT " is %g, expected %g", d, idx, (double)PetscRealPart(a[idx * dim + d]), (double)c1[d][p[d]]);
        }
    PetscCall(VecRestoreArrayRead(coords, &a));
  }

  { /* -expect_exchange <host|device|staged>[,...]: what the exchanges above handed to MPI (DMView() prints the same),
       one of the names given */
    const char *names[]    = {"host", "device", "staged"};
    char        expect[64] = "";
    PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_exchange", expect, sizeof(expect), NULL));
    if (expect[0]) {
      DMQBoxExchange ex = ((DM_QBox *)dm->data)->exchange;
      PetscBool      eq = PETSC_FALSE;
      char         **list;
      int            n;
      PetscCall(PetscStrToArray(expect, ',', &n, &list));
      for (int i = 0; i < n && !eq; i++) PetscCall(PetscStrcmp(list[i], names[ex], &eq));
      PetscCall(PetscStrToArrayDestroy(n, list));
      PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The exchanges are %s, expected %s", names[ex], expect);
    }
  }

  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&g2));
  PetscCall(VecDestroy(&g));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 3d
    output_file: none

  test:
    suffix: 2d_coords
    args: -dim 2 -cells 5,3 -degrees 3 -dm_qbox_coordinates
    output_file: none

  test:
    suffix: 3d_np4
    nsize: 4
    args: -cells 4,4,3 -dm_qbox_coordinates
    output_file: none

  # balance: 10 cells on 2 columns 5 + 5 (not 6 + 4 in units of 2), 12 on 2 6 + 6 (not 8 + 4 in units of 4)
  test:
    suffix: np2_balanced
    nsize: 2
    args: -cells 4,4,10 -expect_max_owned_cells 80
    output_file: none

  test:
    suffix: np4_balanced
    nsize: 4
    args: -cells 2,12,10 -degrees 2 -expect_max_owned_cells 60
    output_file: none

  # the process grid: slabs by default where each rank gets 16 cells along the slowest direction, else the grid of
  # least interface area (as without ghosted vectors); -dm_qbox_procs chooses it
  test:
    suffix: np4_grid_slabs
    nsize: 4
    args: -cells 64,64,64 -degrees 1 -expect_grid 1,1,4
    output_file: none

  test:
    suffix: np4_grid_thin
    nsize: 4
    args: -cells 60,60,60 -degrees 1 -expect_grid 1,2,2
    output_file: none

  test:
    suffix: np4_grid_no_ghosted_vectors
    nsize: 4
    args: -cells 64,64,64 -degrees 1 -dm_qbox_ghosted_vectors false -expect_grid 1,2,2
    output_file: none

  test:
    suffix: np4_grid_procs
    nsize: 4
    args: -cells 64,64,64 -degrees 1 -dm_qbox_procs 2,2,1 -expect_grid 2,2,1
    output_file: none

  # the coarse levels gathered in stages of about 8 (-dm_qbox_gather_stage), down to one process
  test:
    suffix: stages_np8
    nsize: 8
    args: -cells 24,24,24 -degrees 2 -dm_qbox_gather_cells 100000 -expect_stages 1,1,1
  test:
    suffix: stages_np27
    nsize: 27
    args: -cells 24,24,24 -degrees 2 -dm_qbox_gather_cells 100000 -expect_stages 4,1,1
  test:
    suffix: stages_np27_factor2
    nsize: 27
    args: -cells 24,24,24 -degrees 2 -dm_qbox_gather_cells 100000 -dm_qbox_gather_stage 2 -expect_stages 12,4,2
  test:
    suffix: stages_np27_at_once
    nsize: 27
    args: -cells 24,24,24 -degrees 2 -dm_qbox_gather_cells 100000 -dm_qbox_gather_stage 0 -expect_stages 1,1,1
  test:
    suffix: stages_np64
    nsize: 64
    args: -cells 24,24,24 -degrees 2 -dm_qbox_gather_cells 100000 -expect_stages 8,1,1

  test:
    suffix: 2d_np3
    nsize: 3
    args: -dim 2 -cells 6,5 -degrees 4
    output_file: none

  test:
    suffix: cuda
    requires: cuda
    args: -dm_vec_type cuda -degrees 3
    output_file: none

  test:
    suffix: cuda_np2
    requires: cuda
    nsize: 2
    args: -dm_vec_type cuda -cells 4,3,3
    output_file: none

  # device buffers asked for: with an MPI that does not move device memory (plain mpiexec) the probe falls back to
  # host staging (no crash) and says so; with one that does (config/mpiexec-gpu.sh: Open MPI --mca pml ucx over a
  # CUDA-enabled UCX) the exchanges pass device buffers; either way the values exchanged above were checked
  test:
    suffix: cuda_np2_exchange_device
    requires: cuda
    nsize: 2
    args: -dm_vec_type cuda -cells 4,3,3 -dm_qbox_exchange_device -expect_exchange staged,device
    output_file: none

  test:
    suffix: np2_exchange_device_host_vectors
    nsize: 2
    args: -cells 4,3,3 -dm_qbox_exchange_device -expect_exchange host
    output_file: none

  # -vpatch_exchange_device: the default of -dm_qbox_exchange_device (the probe runs: staged or device, not host), read
  # by the package, so a program without a PCAUXAMG is left with no unused option (output none); the DM's own option
  # overrides it
  test:
    suffix: cuda_np2_vpatch_exchange_device
    requires: cuda
    nsize: 2
    args: -dm_vec_type cuda -cells 4,3,3 -vpatch_exchange_device -expect_exchange staged,device
    output_file: none

  test:
    suffix: cuda_np2_vpatch_exchange_device_off
    requires: cuda
    nsize: 2
    args: -dm_vec_type cuda -cells 4,3,3 -vpatch_exchange_device -dm_qbox_exchange_device 0 -expect_exchange host
    output_file: none

  test:
    suffix: np2_vpatch_exchange_device_host_vectors
    nsize: 2
    args: -cells 4,3,3 -vpatch_exchange_device -expect_exchange host
    output_file: none

TEST*/
