/* DMQBOX hierarchy: uniform coarsening and refinement with the partition kept aligned */
#include <petscvpatch/private/qboximpl.h>

/* The process grid of a gathering coarsening of q (cells: the coarse level's): the fine grid with its largest
   directions halved (rounded up) until at most 1/f of its processes are left, each direction at most its cells; f = 0:
   one process. Processes 0 .. p0 p1 p2 - 1 own the coarse level; the others own nothing. A hierarchy on P processes so
   passes through about log_f P gathered levels, each moving its fine level's values onto 1/f of the processes that
   held them, instead of onto rank 0 at once. */
static void DMQBoxStageGrid(const DM_QBox *q, const PetscInt cells[], PetscInt p[3])
{
  PetscInt n = 1, target;

  for (PetscInt d = 0; d < 3; d++) {
    p[d] = d < q->dim ? q->procs[d] : 1;
    n *= p[d];
  }
  target = q->gatherstage ? (n + q->gatherstage - 1) / q->gatherstage : 1;
  while (p[0] * p[1] * p[2] > target) {
    PetscInt e = 0;
    for (PetscInt d = 1; d < q->dim; d++)
      if (p[d] > p[e]) e = d;
    p[e] = (p[e] + 1) / 2;
  }
  for (PetscInt d = 0; d < q->dim; d++) p[d] = PetscMin(p[d], cells[d]);
}

/* the coarsening or refinement of dm; gather: the coarsening on fewer processes (DMQBoxStageGrid(); the others own
   nothing), its partition balanced anew */
static PetscErrorCode DMQBoxCreateRelative(DM dm, MPI_Comm comm, PetscBool coarsen, PetscBool gather, DM *dmn)
{
  DM_QBox *q = (DM_QBox *)dm->data, *qn;
  PetscInt cells[3];

  PetscFunctionBegin;
  if (comm == MPI_COMM_NULL) comm = PetscObjectComm((PetscObject)dm);
  for (PetscInt d = 0; d < q->dim; d++) cells[d] = coarsen ? q->cells[d] / 2 : 2 * q->cells[d];
  PetscCall(DMQBoxCreate(comm, q->dim, cells, q->degree, q->lower, q->upper, dmn));
  PetscCall(DMSetVecType(*dmn, dm->vectype));
  PetscCall(DMSetMatType(*dmn, dm->mattype));
  qn                = (DM_QBox *)(*dmn)->data;
  qn->storecoords   = q->storecoords;
  qn->deterministic = q->deterministic;
  qn->vecmdot       = q->vecmdot;
  qn->vecaypx       = q->vecaypx;
  qn->veclong       = q->veclong;
  qn->fusedres      = q->fusedres;
  qn->exchdevice    = q->exchdevice;
  qn->ghostedvecs   = q->ghostedvecs;
  qn->gather        = q->gather;
  qn->gathercells   = q->gathercells;
  qn->gatherstage   = q->gatherstage;
  qn->dg            = q->dg;
  qn->dgpenalty     = q->dgpenalty;
  qn->mgprecision   = q->mgprecision;
  qn->opweights     = q->opweights;
  qn->precision     = coarsen ? q->mgprecision : q->precision;
  PetscCall(DMQBoxCopyGeometry_Private(dm, *dmn));
  if (gather) {
    DMQBoxStageGrid(q, cells, qn->procs);
    PetscCall(DMQBoxPartition_Private(*dmn));
  } else {
    for (PetscInt d = 0; d < 3; d++) qn->procs[d] = q->procs[d];
    for (PetscInt d = 0; d < q->dim; d++) {
      PetscCall(PetscMalloc1(qn->procs[d], &qn->lc[d]));
      for (PetscInt i = 0; i < q->procs[d]; i++) qn->lc[d][i] = coarsen ? q->lc[d][i] / 2 : 2 * q->lc[d][i];
    }
  }
  PetscCall(DMSetUp(*dmn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the coarsening of dm gathers onto fewer ranks: several ranks own cells, gathering is on (-dm_qbox_gather), and a
   process column owns an odd number of cells (the partition cannot stay aligned) or the coarse level would have fewer
   than -dm_qbox_gather_cells cells in all (default 2^21 / k^dim: a coarse level of about 2M nodes at most, so that the
   fine level whose values the transfer moves has about 16M at most: 7.2M at k = 3, 11M at k = 7, where a count of
   cells alone moved 90M at k = 7) */
static PetscBool DMQBoxCoarsenGathers(const DM_QBox *q)
{
  PetscInt  np     = q->procs[0] * q->procs[1] * q->procs[2];
  PetscReal coarse = 1, limit = q->gathercells >= 0 ? (PetscReal)q->gathercells : 2097152.0 / PetscPowRealInt((PetscReal)q->degree, q->dim);

  if (np == 1 || !q->gather || q->dg) return PETSC_FALSE; /* the discontinuous space: not yet */
  for (PetscInt d = 0; d < q->dim; d++) {
    coarse *= (PetscReal)(q->cells[d] / 2);
    for (PetscInt i = 0; i < q->procs[d]; i++)
      if (q->lc[d][i] % 2) return PETSC_TRUE;
  }
  return (PetscBool)(coarse < limit);
}

PetscErrorCode DMCoarsen_QBox(DM dm, MPI_Comm comm, DM *dmc)
{
  DM_QBox  *q = (DM_QBox *)dm->data;
  PetscBool gather;

  PetscFunctionBegin;
  gather = DMQBoxCoarsenGathers(q);
  for (PetscInt d = 0; d < q->dim; d++) {
    PetscCheck(q->cells[d] % 2 == 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_INCOMP,
               "DMCoarsen(): DMQBOX needs an even number of cells in every direction to coarsen, but direction %" PetscInt_FMT " has %" PetscInt_FMT " cells: use a cell count divisible by 2^(levels-1)", d, q->cells[d]);
    for (PetscInt i = 0; i < q->procs[d] && !gather; i++)
      PetscCheck(q->lc[d][i] % 2 == 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_INCOMP,
                 "DMCoarsen(): process column %" PetscInt_FMT " owns %" PetscInt_FMT " cells in direction %" PetscInt_FMT
                 "; coarsening needs an even number of cells on every process: use fewer levels or fewer processes, or gather the coarse levels onto one (-dm_qbox_gather)",
                 i, q->lc[d][i], d);
  }
  PetscCall(DMQBoxCreateRelative(dm, comm, PETSC_TRUE, gather, dmc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMRefine_QBox(DM dm, MPI_Comm comm, DM *dmf)
{
  PetscFunctionBegin;
  PetscCall(DMQBoxCreateRelative(dm, comm, PETSC_FALSE, PETSC_FALSE, dmf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetMaxLevels - The number of levels of the deepest hierarchy `DMCoarsen()` can build from this `DM`

  Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameter:
. levels - 1 + the number of times the mesh can be coarsened (every direction keeps an even number of cells;
           with -dm_qbox_gather false, also every process)

  Level: beginner

  Note:
  A 16 x 16 mesh on one process gives 5 levels (16, 8, 4, 2, 1 cells per direction), and on several too: where a
  process's cells can no longer be halved, or the coarse level would have fewer than -dm_qbox_gather_cells cells in all
  (default 2^21 / k^dim, a coarse level of about 2M nodes: 32^3 cells of Q_3, 16^3 of Q_7), `DMCoarsen()` gathers the
  coarse level onto fewer ranks, about one in -dm_qbox_gather_stage (default 8; the others own none of it), and the next
  coarsenings go on gathering in stages down to rank 0, as PCTELESCOPE users reduce a coarse problem: the hierarchy has
  the levels of one rank. `DMCreateInterpolation()` between two partitions moves the values with a packed exchange.
  -dm_qbox_gather false keeps every level on every process (the hierarchy then stops where a process's cells cannot be
  halved). The discontinuous space (-dm_qbox_dg) is not gathered yet. `DMSetUp()` sets the `DM`'s
  refinement level (`DMGetRefineLevel()`) to levels - 1, so `PCMG` with `KSPSetDM()` and no `-pc_mg_levels` (or
  `PCMGSetLevels()`) builds this whole hierarchy.

.seealso: `DMQBOX`, `DMCoarsen()`, `PCMG`
@*/
PetscErrorCode DMQBoxGetMaxLevels(DM dm, PetscInt *levels)
{
  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxGetMaxLevels"));
  PetscAssertPointer(levels, 2);
  PetscCall(DMQBoxMaxLevels_Private(dm, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMQBoxGetMaxLevels() once the partition exists (also during DMSetUp()) */
PetscErrorCode DMQBoxMaxLevels_Private(DM dm, PetscInt *levels)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt c = PETSC_INT_MAX;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < q->dim; d++) {
    if (q->gather && !q->dg) { /* the coarse levels gathered onto one rank where the partition cannot follow: as on one rank */
      PetscInt n = 0;
      for (PetscInt m = q->cells[d]; m % 2 == 0; m /= 2) n++;
      c = PetscMin(c, n);
    } else
      for (PetscInt i = 0; i < q->procs[d]; i++) {
        PetscInt n = 0;
        for (PetscInt m = q->lc[d][i]; m % 2 == 0; m /= 2) n++;
        c = PetscMin(c, n);
      }
  }
  *levels = c + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
