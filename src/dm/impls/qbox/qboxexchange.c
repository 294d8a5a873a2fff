/*
  The exchanges of DMQBOX vectors: global to local and back, the ghost exchange of ghosted buffers, the move of a level
  between two partitions, and the local-to-global map. On one rank a copy; on several, lists made from the box
  decomposition (qboxpacked.c moves the data).
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscdmda.h>
#include <petscsf.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#endif

/* The exchange between global vectors (owned boxes) and local vectors (ghosted boxes), on the box decomposition itself:
   the owned nodes are copied between the two layouts (a kernel on the device), the ghost nodes come from their owners
   through one PetscSF whose leaves are the ghost nodes only. Its graph is made from the per-direction ownership in
   O(ghost nodes), with no global index array and no scatter of the owned part. On one rank the local box is the
   owned box: the exchange is a copy (INSERT) or a sum (ADD) of the vectors. Modes other than INSERT_VALUES (and
   ADD_VALUES from local to global) go to the inner DMDA. */

PetscErrorCode DMQBoxColumnsCreate_Private(DM dm, DMQBoxColumns *c)
{
  DM_QBox    *q = (DM_QBox *)dm->data;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  c->me[0] = rank % q->procs[0];
  c->me[1] = (rank / q->procs[0]) % q->procs[1];
  c->me[2] = rank / (q->procs[0] * q->procs[1]);
  if (!q->active) c->me[0] = c->me[1] = c->me[2] = 0; /* owns nothing: the searches start at column 0 */
  for (PetscInt d = 0; d < 3; d++) {
    c->P[d] = d < q->dim ? q->procs[d] : 1;
    PetscCall(PetscMalloc1(6 * c->P[d], &c->b[d]));
    for (PetscInt i = 0; i < c->P[d]; i++) PetscCall(DMQBoxColumnBox_Private(dm, d, i, c->b[d] + 6 * i));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxColumnsDestroy_Private(DMQBoxColumns *c)
{
  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(c->b[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the column of direction d whose owned nodes (entry 0, 1) or owned cells (entry 4, 5) hold p: ghost nodes and patch
   vertices lie in the neighbouring columns, so the search starts at this rank's column */
PetscInt DMQBoxColumnOf_Private(const DMQBoxColumns *c, PetscInt d, PetscInt e, PetscInt p)
{
  PetscInt i = c->me[d];
  while (i > 0 && p < c->b[d][6 * i + e]) i--;
  while (i < c->P[d] - 1 && p >= c->b[d][6 * i + e] + c->b[d][6 * i + e + 1]) i++;
  return i;
}

/* the columns of direction d whose range of entry e (0 owned nodes, 2 ghosted box) meets [lo, lo + n): first and end */
static void QBoxColumnsMeeting(const DMQBoxColumns *c, PetscInt d, PetscInt e, PetscInt lo, PetscInt n, PetscInt *c0, PetscInt *c1)
{
  PetscInt i = 0;

  while (i < c->P[d] && c->b[d][6 * i + e] + c->b[d][6 * i + e + 1] <= lo) i++;
  *c0 = i;
  while (i < c->P[d] && c->b[d][6 * i + e] < lo + n) i++;
  *c1 = i;
}

/*
  The lists of a packed exchange between two layouts of one grid's nodes on the ranks of one communicator, each given
  by its process columns: the sending layout S (a rank's array is its box of entry es of S's columns: 0, the owned
  nodes) and the receiving layout R (entry er: 0 owned, 2 the ghosted box). This rank sends to every rank t of R the
  nodes of its S box in t's R box, and receives from every rank f of S the nodes of f's S box in its own R box, both
  sides in global lexicographic order, so the lists match entry by entry; the peers are visited in rank order (rank =
  column x + P_x (column y + P_y column z)). sact / ract: this rank has a box in S / R (a gathered level's other ranks
  have none); noself: nothing to itself (the ghost exchange: a rank's own nodes are copied apart). Two passes (count,
  then fill as runs, one per row of each box intersection), O(rows of the intersections + columns).
*/
static PetscErrorCode QBoxBoxLists(const DMQBoxColumns *S, PetscInt es, PetscBool sact, const DMQBoxColumns *R, PetscInt er, PetscBool ract, PetscMPIInt rank, PetscBool noself, DMQBoxPeers *send, DMQBoxPeers *recv, DMQBoxPacked *x)
{
  PetscFunctionBegin;
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt side = 0; side < 2; side++) {                 /* 0: send (this rank's S box against R's boxes), 1: receive */
      const DMQBoxColumns *M = side ? R : S, *O = side ? S : R; /* this rank's layout, the others' */
      const PetscInt       em = side ? er : es, eo = side ? es : er;
      DMQBoxPeers         *p = side ? recv : send;
      PetscInt             lo[3], n[3], c0[3], c1[3];

      if (!(side ? ract : sact)) continue;
      for (PetscInt d = 0; d < 3; d++) {
        lo[d] = M->b[d][6 * M->me[d] + em];
        n[d]  = M->b[d][6 * M->me[d] + em + 1];
        QBoxColumnsMeeting(O, d, eo, lo[d], n[d], &c0[d], &c1[d]);
      }
      for (PetscInt cz = c0[2]; cz < c1[2]; cz++)
        for (PetscInt cy = c0[1]; cy < c1[1]; cy++)
          for (PetscInt cx = c0[0]; cx < c1[0]; cx++) {
            const PetscInt    col[3] = {cx, cy, cz};
            const PetscMPIInt r      = (PetscMPIInt)(cx + O->P[0] * (cy + O->P[1] * cz));
            PetscInt          blo[3], bhi[3], vol = 1, slot;

            if (noself && r == rank) continue;
            for (PetscInt d = 0; d < 3; d++) {
              blo[d] = PetscMax(lo[d], O->b[d][6 * col[d] + eo]);
              bhi[d] = PetscMin(lo[d] + n[d], O->b[d][6 * col[d] + eo] + O->b[d][6 * col[d] + eo + 1]);
              vol *= PetscMax(bhi[d] - blo[d], 0);
            }
            if (!vol) continue;
            if (pass == 0) {
              PetscCall(DMQBoxPeersAdd_Private(p, r, &slot));
              p->count[slot] += vol;
              continue;
            }
            slot = DMQBoxPeersFind_Private(p, r);
            for (PetscInt z = blo[2]; z < bhi[2]; z++) /* a run per row of the intersection */
              for (PetscInt y = blo[1]; y < bhi[1]; y++) {
                const PetscInt row = ((z - lo[2]) * n[1] + (y - lo[1])) * n[0] - lo[0];

                PetscCall(DMQBoxPackedAddRun_Private(x, side, p->start[slot] + p->fill[slot], row + blo[0], bhi[0] - blo[0]));
                p->fill[slot] += bhi[0] - blo[0];
              }
          }
    }
    if (pass == 0) PetscCall(DMQBoxPackedAllocLists_Private(send, recv, x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lists' receive side covers exactly the n nodes it must (every ghost node, or every owned node of a move) */
static PetscErrorCode QBoxCheckReceived(const DMQBoxPeers *recv, PetscInt n, const char what[])
{
  PetscInt got = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < recv->n; i++) got += recv->count[i];
  PetscCheck(got == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX %s: receives %" PetscInt_FMT " values, expected %" PetscInt_FMT, what, got, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ghost exchange: from the owned array (roots) of each rank to the ghost nodes of the local arrays (leaves) of the
   others, a packed exchange (qboxpacked.c) made from the box decomposition on first use */
PetscErrorCode DMQBoxGetGhostExchange_Private(DM dm, DMQBoxPacked **gx)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  if (!q->ghostx.sf) {
    DMQBoxColumns c;
    DMQBoxPeers   send = {0}, recv = {0};
    PetscMPIInt   rank;

    PetscCall(PetscLogEventBegin(VPATCH_GhostSetUp, dm, 0, 0, 0));
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
    PetscCall(DMQBoxColumnsCreate_Private(dm, &c));
    PetscCall(QBoxBoxLists(&c, 0, q->active, &c, 2, q->active, rank, PETSC_TRUE, &send, &recv, &q->ghostx));
    PetscCall(DMQBoxColumnsDestroy_Private(&c));
    PetscCall(QBoxCheckReceived(&recv, (PetscInt)(q->grid.gxm[0] * q->grid.gxm[1] * q->grid.gxm[2] - q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2]), "ghost exchange"));
    PetscCall(DMQBoxPackedSetUp_Private(dm, "ghost exchange", &send, &recv, &q->ghostx));
    PetscCall(DMQBoxPeersDestroy_Private(&send));
    PetscCall(DMQBoxPeersDestroy_Private(&recv));
    PetscCall(PetscLogEventEnd(VPATCH_GhostSetUp, dm, 0, 0, 0));
  }
  *gx = &q->ghostx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The move between two partitions of one grid (a level and the same level on a gathered coarse level's processes,
   src/mat/impls/transfer/transfer.c): a packed exchange from the owned nodes of from (the senders' arrays) to the
   owned nodes of to (the receivers'), each node exactly once. Made from both DMs' process columns in O(owned nodes). */
PetscErrorCode DMQBoxCreateMove_Private(DM from, DM to, DMQBoxPacked *mv)
{
  DMQBoxColumns cf, ct;
  DMQBoxPeers   send = {0}, recv = {0};
  PetscMPIInt   rank;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_MoveSetUp, to, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)to), &rank));
  PetscCall(DMQBoxColumnsCreate_Private(from, &cf));
  PetscCall(DMQBoxColumnsCreate_Private(to, &ct));
  PetscCall(QBoxBoxLists(&cf, 0, ((DM_QBox *)from->data)->active, &ct, 0, ((DM_QBox *)to->data)->active, rank, PETSC_FALSE, &send, &recv, mv));
  PetscCall(DMQBoxColumnsDestroy_Private(&cf));
  PetscCall(DMQBoxColumnsDestroy_Private(&ct));
  PetscCall(QBoxCheckReceived(&recv, (PetscInt)(((DM_QBox *)to->data)->grid.xm[0] * ((DM_QBox *)to->data)->grid.xm[1] * ((DM_QBox *)to->data)->grid.xm[2]), "move between partitions"));
  PetscCall(DMQBoxPackedSetUp_Private(to, "move between partitions", &send, &recv, mv));
  PetscCall(DMQBoxPeersDestroy_Private(&send));
  PetscCall(DMQBoxPeersDestroy_Private(&recv));
  PetscCall(PetscLogEventEnd(VPATCH_MoveSetUp, to, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxDestroyExchange_Private(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxPackedDestroy_Private(&q->ghostx));
  PetscCall(DMQBoxColorExchangeDestroy_Private(dm));
  if (q->chunk != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&q->chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* how an exchange is done: on one rank by the vectors themselves (every INSERT and ADD mode), on several by the
   box's star forest (G2L INSERT_VALUES; L2G INSERT_VALUES and ADD_VALUES), else by the inner DMDA */
typedef enum {
  QBOX_EXCHANGE_SELF,
  QBOX_EXCHANGE_SF,
  QBOX_EXCHANGE_DA
} QBoxExchange;

static PetscErrorCode DMQBoxExchangeKind(DM dm, InsertMode mode, PetscBool toLocal, QBoxExchange *kind)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (size == 1 && ((DM_QBox *)dm->data)->samelayout && (mode == INSERT_VALUES || mode == INSERT_ALL_VALUES || mode == ADD_VALUES || mode == ADD_ALL_VALUES))
    *kind = QBOX_EXCHANGE_SELF;
  else if (mode == INSERT_VALUES || (!toLocal && mode == ADD_VALUES))
    *kind = QBOX_EXCHANGE_SF;
  else
    *kind = QBOX_EXCHANGE_DA;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to <- from (mode) on one rank */
static PetscErrorCode DMQBoxExchangeSelf(InsertMode mode, Vec from, Vec to)
{
  PetscFunctionBegin;
  if (mode == INSERT_VALUES || mode == INSERT_ALL_VALUES) {
    if (from != to) PetscCall(VecCopy(from, to));
  } else
    PetscCall(VecAXPY(to, 1.0, from));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void QBoxOwnedCopy_CPU(const VPGrid *g, VPOwnedCopyMode mode, PetscScalar *glob, PetscScalar *loc)
{
  PetscInt i = 0;
  for (PetscInt pz = 0; pz < g->xm[2]; pz++)
    for (PetscInt py = 0; py < g->xm[1]; py++) {
      PetscScalar *l = loc + ((pz + g->xs[2] - g->gxs[2]) * g->gxm[1] + (py + g->xs[1] - g->gxs[1])) * g->gxm[0] + (g->xs[0] - g->gxs[0]);
      for (PetscInt px = 0; px < g->xm[0]; px++, i++) {
        if (mode == VP_OWNED_TO_LOCAL)
          l[px] = glob[i];
        else if (mode == VP_OWNED_FROM_LOCAL)
          glob[i] = l[px];
        else
          glob[i] += l[px];
      }
    }
}

PetscErrorCode DMQBoxArrayGet_Private(Vec v, int access, PetscBool host, DMQBoxArray *x)
{
  PetscFunctionBegin;
  x->v      = v;
  x->access = access;
  x->host   = host;
  x->mt     = PETSC_MEMTYPE_HOST;
  if (host) {
    if (access == 0)
      PetscCall(VecGetArrayRead(v, (const PetscScalar **)&x->a));
    else if (access == 1)
      PetscCall(VecGetArrayWrite(v, &x->a));
    else
      PetscCall(VecGetArray(v, &x->a));
  } else {
    if (access == 0)
      PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)&x->a, &x->mt));
    else if (access == 1)
      PetscCall(VecGetArrayWriteAndMemType(v, &x->a, &x->mt));
    else
      PetscCall(VecGetArrayAndMemType(v, &x->a, &x->mt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxArrayRestore_Private(DMQBoxArray *x)
{
  PetscFunctionBegin;
  if (x->host) {
    if (x->access == 0)
      PetscCall(VecRestoreArrayRead(x->v, (const PetscScalar **)&x->a));
    else if (x->access == 1)
      PetscCall(VecRestoreArrayWrite(x->v, &x->a));
    else
      PetscCall(VecRestoreArray(x->v, &x->a));
  } else {
    if (x->access == 0)
      PetscCall(VecRestoreArrayReadAndMemType(x->v, (const PetscScalar **)&x->a));
    else if (x->access == 1)
      PetscCall(VecRestoreArrayWriteAndMemType(x->v, &x->a));
    else
      PetscCall(VecRestoreArrayAndMemType(x->v, &x->a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The exchange by the box's star forest, whole (Begin does it all; End has nothing left to do).
   toLocal: l = g on the owned nodes, ghosts from their owners; else g = l (INSERT) or g += l plus the ghost
   contributions of the other ranks (ADD; with fresh, g = l plus them: g's old values are not read). Device arrays stay
   on the device (PetscSF stages them through the host when MPI is not GPU-aware); a host array with a device one: both
   on the host. */
static PetscErrorCode DMQBoxExchangeSF(DM dm, PetscBool toLocal, InsertMode mode, PetscBool fresh, Vec g, Vec l)
{
  const VPGrid   *grid = &((DM_QBox *)dm->data)->grid;
  DMQBoxPacked   *gx;
  DMQBoxArray     G, L;
  int             gacc = toLocal ? 0 : (mode == ADD_VALUES && !fresh ? 2 : 1), lacc = toLocal ? 1 : 0;
  VPOwnedCopyMode cm = toLocal ? VP_OWNED_TO_LOCAL : (mode == ADD_VALUES && !fresh ? VP_OWNED_ADD_LOCAL : VP_OWNED_FROM_LOCAL);

  PetscFunctionBegin;
  PetscCall(DMQBoxGetGhostExchange_Private(dm, &gx));
  PetscCall(DMQBoxArrayGet_Private(g, gacc, PETSC_FALSE, &G));
  PetscCall(DMQBoxArrayGet_Private(l, lacc, PETSC_FALSE, &L));
  if (PetscMemTypeDevice(G.mt) != PetscMemTypeDevice(L.mt)) {
    PetscCall(DMQBoxArrayRestore_Private(&G));
    PetscCall(DMQBoxArrayRestore_Private(&L));
    PetscCall(DMQBoxArrayGet_Private(g, gacc, PETSC_TRUE, &G));
    PetscCall(DMQBoxArrayGet_Private(l, lacc, PETSC_TRUE, &L));
  }
#if defined(PETSC_HAVE_CUDA)
  if (PetscMemTypeDevice(G.mt))
    PetscCall(VPOwnedCopy_CUDA(grid, cm, G.a, L.a));
  else
#endif
    QBoxOwnedCopy_CPU(grid, cm, G.a, L.a);
  if (toLocal)
    PetscCall(DMQBoxPackedForward_Private(dm, gx, G.mt, G.a, L.a, INSERT_VALUES));
  else if (mode == ADD_VALUES)
    PetscCall(DMQBoxPackedReverse_Private(dm, gx, G.mt, L.a, G.a, ADD_VALUES));
  PetscCall(DMQBoxArrayRestore_Private(&G));
  PetscCall(DMQBoxArrayRestore_Private(&L));
  if (!toLocal && mode == ADD_VALUES) PetscCall(PetscLogFlops((PetscLogDouble)grid->xm[0] * grid->xm[1] * grid->xm[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalBegin_QBox(DM dm, Vec g, InsertMode mode, Vec l)
{
  QBoxExchange kind;
  DM           da;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_TRUE, &kind));
  if (kind == QBOX_EXCHANGE_SELF)
    PetscCall(DMQBoxExchangeSelf(mode, g, l));
  else if (kind == QBOX_EXCHANGE_SF)
    PetscCall(DMQBoxExchangeSF(dm, PETSC_TRUE, mode, PETSC_FALSE, g, l));
  else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMGlobalToLocalBegin(da, g, mode, l));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalEnd_QBox(DM dm, Vec g, InsertMode mode, Vec l)
{
  QBoxExchange kind;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_TRUE, &kind));
  if (kind == QBOX_EXCHANGE_DA) PetscCall(DMGlobalToLocalEnd(((DM_QBox *)dm->data)->da, g, mode, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalBegin_QBox(DM dm, Vec l, InsertMode mode, Vec g)
{
  QBoxExchange kind;
  DM           da;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_FALSE, &kind));
  if (kind == QBOX_EXCHANGE_SELF)
    PetscCall(DMQBoxExchangeSelf(mode, l, g));
  else if (kind == QBOX_EXCHANGE_SF)
    PetscCall(DMQBoxExchangeSF(dm, PETSC_FALSE, mode, PETSC_FALSE, g, l));
  else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMLocalToGlobalBegin(da, l, mode, g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalEnd_QBox(DM dm, Vec l, InsertMode mode, Vec g)
{
  QBoxExchange kind;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_FALSE, &kind));
  if (kind == QBOX_EXCHANGE_DA) PetscCall(DMLocalToGlobalEnd(((DM_QBox *)dm->data)->da, l, mode, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g = the sum of the ranks' local contributions l: what VecSet(g, 0) and DMLocalToGlobal(l, ADD_VALUES, g) give, with
   two passes over g less where the box's star forest does the exchange (the owned part is copied, not added to zeros) */
PetscErrorCode DMQBoxLocalToGlobalSum_Private(DM dm, Vec l, Vec g)
{
  QBoxExchange kind;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, ADD_VALUES, PETSC_FALSE, &kind));
  if (kind == QBOX_EXCHANGE_SF)
    PetscCall(DMQBoxExchangeSF(dm, PETSC_FALSE, ADD_VALUES, PETSC_TRUE, g, l));
  else {
    PetscCall(VecSet(g, 0.0));
    PetscCall(DMLocalToGlobal(dm, l, ADD_VALUES, g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a level on one process of several (gathered, DMCoarsen()): its local box is its owned box, numbered from 0 */
PetscBool DMQBoxGatheredOnOne_Private(DM dm)
{
  DM_QBox    *q    = (DM_QBox *)dm->data;
  PetscMPIInt size = 1;

  (void)MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size);
  return (PetscBool)(size > 1 && q->procs[0] * q->procs[1] * q->procs[2] == 1);
}

PetscErrorCode DMGetLocalToGlobalMapping_QBox(DM dm)
{
  ISLocalToGlobalMapping ltog;
  DM                     da;

  PetscFunctionBegin;
  if (DMQBoxGatheredOnOne_Private(dm)) { /* local index = global index on rank 0, nothing elsewhere */
    const VPGrid *g = &((DM_QBox *)dm->data)->grid;
    PetscInt      n = g->gxm[0] * g->gxm[1] * g->gxm[2], *idx;
    PetscCall(PetscMalloc1(n, &idx));
    for (PetscInt i = 0; i < n; i++) idx[i] = i;
    PetscCall(ISLocalToGlobalMappingCreate(PETSC_COMM_SELF, 1, n, idx, PETSC_OWN_POINTER, &ltog));
  } else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
    PetscCall(PetscObjectReference((PetscObject)ltog));
  }
  PetscCall(ISLocalToGlobalMappingDestroy(&dm->ltogmap));
  dm->ltogmap = ltog;
  PetscFunctionReturn(PETSC_SUCCESS);
}
