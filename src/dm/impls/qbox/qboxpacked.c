/*
  DMQBOX: packed exchanges, the engine under the ghost exchange (qboxexchange.c), the move between two partitions of a level
  (the transfers to a gathered level) and the color exchanges of the multiplicative sweep (qboxcolor.c).

  Both sides list the values they exchange, per peer rank (ascending) and in global lexicographic order, so the lists
  match entry by entry without an index from the other side: the sender gathers its values into a send buffer by its
  list (the send list), a PetscSF moves the buffer, and the receiver scatters its receive buffer by its list. Each
  message is padded to whole chunks of DMQBOX_CHUNK values and the star forest has one leaf per chunk, both buffers
  contiguous, so its set-up (rank discovery, index analysis, PETSc's duplicate checks) costs per chunk, not per value:
  with one leaf per value it took about 100 ns per value. The only index the
  sender needs from the receiver is where its message starts, which one PetscCommBuildTwoSided() delivers, with the
  counts checked.

  Forward: sender's array -> receiver's array (insert or add). Reverse: receiver's values -> the sender's array (insert
  or add): the same star forest reduced, each root chunk having exactly one leaf chunk; a sender's entry may appear in
  several messages (a node in the ghost boxes of several ranks), so the adds go one message at a time, in rank order:
  no atomics, bitwise reproducible.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscsf.h>
#include <petscdevice.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#endif

/* the slot of peer r, added with count 0 if new */
PetscErrorCode DMQBoxPeersAdd_Private(DMQBoxPeers *p, PetscMPIInt r, PetscInt *slot)
{
  PetscInt i = DMQBoxPeersFind_Private(p, r);

  PetscFunctionBegin;
  if (i < 0) {
    if (p->n == p->cap) {
      const PetscInt cap = PetscMax(2 * p->cap, 32);
      PetscCall(PetscRealloc(cap * sizeof(PetscMPIInt), &p->rank));
      PetscCall(PetscRealloc(cap * sizeof(PetscInt), &p->count));
      PetscCall(PetscRealloc(cap * sizeof(PetscInt), &p->start));
      PetscCall(PetscRealloc(cap * sizeof(PetscInt), &p->fill));
      p->cap = cap;
    }
    i           = p->n++;
    p->rank[i]  = r;
    p->count[i] = 0;
  }
  *slot = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt DMQBoxPeersFind_Private(const DMQBoxPeers *p, PetscMPIInt r)
{
  for (PetscInt i = p->n - 1; i >= 0; i--) /* the last added first: the lists add a peer's runs together */
    if (p->rank[i] == r) return i;
  return -1;
}

PetscErrorCode DMQBoxPeersDestroy_Private(DMQBoxPeers *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(p->rank));
  PetscCall(PetscFree(p->count));
  PetscCall(PetscFree(p->start));
  PetscCall(PetscFree(p->fill));
  p->n = p->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sorts the peers by rank, then lays their messages out in whole chunks; returns the packed length */
PetscInt DMQBoxPeersLayout_Private(DMQBoxPeers *p)
{
  PetscInt off = 0;

  for (PetscInt i = 1; i < p->n; i++) /* insertion sort: a few peers */
    for (PetscInt j = i; j > 0 && p->rank[j - 1] > p->rank[j]; j--) {
      PetscMPIInt r   = p->rank[j];
      PetscInt    n   = p->count[j];
      p->rank[j]      = p->rank[j - 1];
      p->count[j]     = p->count[j - 1];
      p->rank[j - 1]  = r;
      p->count[j - 1] = n;
    }
  for (PetscInt i = 0; i < p->n; i++) {
    p->start[i] = off;
    p->fill[i]  = 0;
    off += (p->count[i] + DMQBOX_CHUNK - 1) / DMQBOX_CHUNK * DMQBOX_CHUNK;
  }
  return off;
}

/* the packed lengths of both sides for the laid-out peers; their lists come as runs (DMQBoxPackedAddRun_Private()) */
PetscErrorCode DMQBoxPackedAllocLists_Private(DMQBoxPeers *send, DMQBoxPeers *recv, DMQBoxPacked *x)
{
  PetscFunctionBegin;
  x->nsend   = DMQBoxPeersLayout_Private(send);
  x->nrecv   = DMQBoxPeersLayout_Private(recv);
  x->nrun[0] = x->nrun[1] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* appends to the list of side (0 send, 1 receive) the indices first .. first + len - 1 at packed position pos, joined
   to the last run where both continue it */
PetscErrorCode DMQBoxPackedAddRun_Private(DMQBoxPacked *x, PetscInt side, PetscInt pos, PetscInt first, PetscInt len)
{
  PetscInt *r;

  PetscFunctionBegin;
  if (len <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (x->nrun[side]) {
    r = x->run[side] + 3 * (x->nrun[side] - 1);
    if (r[0] + r[1] == first && r[2] + r[1] == pos) {
      r[1] += len;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (x->nrun[side] == x->maxrun[side]) {
    x->maxrun[side] = PetscMax(2 * x->maxrun[side], 64);
    PetscCall(PetscRealloc(3 * x->maxrun[side] * sizeof(PetscInt), &x->run[side]));
  }
  r    = x->run[side] + 3 * x->nrun[side]++;
  r[0] = first;
  r[1] = len;
  r[2] = pos;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the list of side value by value on the host, expanded from the runs on first use */
static PetscErrorCode QBoxPackedHostList(DMQBoxPacked *x, PetscInt side, const PetscInt **idx)
{
  PetscFunctionBegin;
  if (!x->idx[side]) {
    const PetscInt n = side ? x->nrecv : x->nsend;

    PetscCall(PetscMalloc1(PetscMax(n, 1), &x->idx[side]));
    for (PetscInt i = 0; i < n; i++) x->idx[side][i] = -1;
    for (PetscInt r = 0; r < x->nrun[side]; r++) {
      const PetscInt *u = x->run[side] + 3 * r;
      for (PetscInt i = 0; i < u[1]; i++) x->idx[side][u[2] + i] = u[0] + i;
    }
  }
  *idx = x->idx[side];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxPackedSetUp_Private - the star forest of a packed exchange whose lists (DMQBoxPackedAllocLists_Private(), then
  filled) and peers are made: collective on dm's communicator. what names the exchange in errors and -info.
*/
PetscErrorCode DMQBoxPackedSetUp_Private(DM dm, const char what[], const DMQBoxPeers *send, const DMQBoxPeers *recv, DMQBoxPacked *x)
{
  DM_QBox     *q    = (DM_QBox *)dm->data;
  MPI_Comm     comm = PetscObjectComm((PetscObject)dm);
  PetscMPIInt  rank, nfrom, *fromranks, *toranks;
  PetscInt    *todata, *fromdata, nleaves;
  PetscSFNode *iremote;
  PetscBool    cuda;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  x->nsmsg = send->n;
  PetscCall(PetscMalloc2(send->n, &toranks, 2 * send->n, &todata));
  PetscCall(PetscMalloc1(2 * send->n, &x->smsg));
  for (PetscInt i = 0; i < send->n; i++) {
    toranks[i]         = send->rank[i];
    todata[2 * i]      = send->start[i] / DMQBOX_CHUNK;
    todata[2 * i + 1]  = send->count[i];
    x->smsg[2 * i]     = send->start[i];
    x->smsg[2 * i + 1] = send->count[i];
  }
  /* each receiver learns where its message starts in the sender's buffer, and checks the count against its own */
  PetscCall(PetscCommBuildTwoSided(comm, 2, MPIU_INT, (PetscMPIInt)send->n, toranks, todata, &nfrom, &fromranks, &fromdata));
  PetscCall(PetscFree2(toranks, todata));
  PetscCheck(nfrom == recv->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX %s: rank %d receives from %d ranks, expected %" PetscInt_FMT, what, rank, nfrom, recv->n);
  nleaves = x->nrecv / DMQBOX_CHUNK;
  PetscCall(PetscMalloc1(nleaves, &iremote));
  for (PetscMPIInt f = 0; f < nfrom; f++) {
    const PetscInt s = DMQBoxPeersFind_Private(recv, fromranks[f]);

    PetscCheck(s >= 0 && fromdata[2 * f + 1] == recv->count[s], PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX %s: rank %d sends %" PetscInt_FMT " values to rank %d, which expects %" PetscInt_FMT, what, fromranks[f], fromdata[2 * f + 1], rank,
               s >= 0 ? recv->count[s] : 0);
    for (PetscInt j = 0; j < (recv->count[s] + DMQBOX_CHUNK - 1) / DMQBOX_CHUNK; j++) {
      iremote[recv->start[s] / DMQBOX_CHUNK + j].rank  = fromranks[f];
      iremote[recv->start[s] / DMQBOX_CHUNK + j].index = fromdata[2 * f] + j;
    }
  }
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromdata));
  PetscCall(PetscSFCreate(comm, &x->sf));
  PetscCall(PetscSFSetGraph(x->sf, x->nsend / DMQBOX_CHUNK, nleaves, NULL, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(x->sf));
  PetscCall(DMQBoxExchangeTransport_Private(dm, x->sf));
  if (q->chunk == MPI_DATATYPE_NULL) {
    PetscCallMPI(MPI_Type_contiguous(DMQBOX_CHUNK, MPIU_SCALAR, &q->chunk));
    PetscCallMPI(MPI_Type_commit(&q->chunk));
  }
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
#if defined(PETSC_HAVE_CUDA)
  if (cuda) /* the lists on the device, once, expanded there from the runs */
    for (PetscInt side = 0; side < 2; side++) {
      const PetscInt n = side ? x->nrecv : x->nsend;

      PetscCallCUDA(cudaMalloc((void **)&x->d_idx[side], PetscMax(n, 1) * sizeof(PetscInt)));
      PetscCall(VPRunsExpand_CUDA(x->nrun[side], x->run[side], n, x->d_idx[side]));
    }
#endif
  PetscCall(PetscInfo(dm, "%s: sends %" PetscInt_FMT " values to %" PetscInt_FMT " ranks, receives %" PetscInt_FMT " from %" PetscInt_FMT " (in chunks of %d; runs %" PetscInt_FMT " and %" PetscInt_FMT ")\n", what, x->nsend, send->n, x->nrecv,
                      recv->n, DMQBOX_CHUNK, x->nrun[0], x->nrun[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxPackedDestroy_Private(DMQBoxPacked *x)
{
  PetscFunctionBegin;
  PetscCall(VPSFDestroy_Private(&x->sf));
  for (PetscInt side = 0; side < 2; side++) {
    PetscCall(PetscFree(x->run[side]));
    PetscCall(PetscFree(x->idx[side]));
#if defined(PETSC_HAVE_CUDA)
    if (x->d_idx[side]) PetscCallCUDA(cudaFree(x->d_idx[side]));
#endif
  }
  PetscCall(PetscFree(x->smsg));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VPDeviceMPIFree_Private(x->buf[1][0]));
  PetscCall(VPDeviceMPIFree_Private(x->buf[1][1]));
#endif
  PetscCall(PetscFree2(x->buf[0][0], x->buf[0][1]));
  PetscCall(PetscMemzero(x, sizeof(*x)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a pair of packed buffers for memory type mt, at least ns and nr values: device ones from the pool of the buffers
   MPI may get (src/sys/vpdevicempi.c), not the vectors'. buf and nbuf: the owner's pairs, host [0] and device [1] */
PetscErrorCode DMQBoxPackedBuffers_Private(PetscScalar *buf[2][2], PetscInt nbuf[2], PetscMemType mt, PetscInt n, PetscScalar **send, PetscScalar **recv)
{
  const int dev = PetscMemTypeDevice(mt) ? 1 : 0;

  PetscFunctionBegin;
  if (nbuf[dev] < n) {
    if (dev) {
#if defined(PETSC_HAVE_CUDA)
      PetscCall(VPDeviceMPIFree_Private(buf[dev][0]));
      PetscCall(VPDeviceMPIFree_Private(buf[dev][1]));
      PetscCall(VPDeviceMPIMalloc_Private(n * sizeof(PetscScalar), (void **)&buf[dev][0]));
      PetscCall(VPDeviceMPIMalloc_Private(n * sizeof(PetscScalar), (void **)&buf[dev][1]));
#else
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
    } else {
      PetscCall(PetscFree2(buf[0][0], buf[0][1]));
      PetscCall(PetscMalloc2(n, &buf[0][0], n, &buf[0][1]));
    }
    nbuf[dev] = n;
  }
  *send = buf[dev][0];
  *recv = buf[dev][1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* packed[i] = loc[idx[i]] (VP_PACK; 0 for padding), loc[idx[i]] = packed[i] (VP_UNPACK) or loc[idx[i]] += packed[i]
   (VP_UNPACK_ADD; padding skipped); idx must not repeat an index when adding on the device */
PetscErrorCode DMQBoxPackedCopy_Private(DMQBoxPacked *x, PetscInt side, PetscInt s, PetscInt n, PetscMemType mt, VPIndexedCopyMode mode, PetscScalar *packed, PetscScalar *loc)
{
  const PetscInt *idx;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  if (PetscMemTypeDevice(mt)) {
#if defined(PETSC_HAVE_CUDA)
    PetscCheck(x->d_idx[side], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMQBOX exchange of a device array on a DM whose vectors are not CUDA: use -dm_vec_type cuda");
    PetscCall(VPIndexedCopy_CUDA(n, x->d_idx[side] + s, mode, packed, loc));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(QBoxPackedHostList(x, side, &idx));
  idx += s;
  if (mode == VP_UNPACK) {
    for (PetscInt i = 0; i < n; i++)
      if (idx[i] >= 0) loc[idx[i]] = packed[i];
  } else if (mode == VP_UNPACK_ADD) {
    for (PetscInt i = 0; i < n; i++)
      if (idx[i] >= 0) loc[idx[i]] += packed[i];
  } else
    for (PetscInt i = 0; i < n; i++) packed[i] = idx[i] >= 0 ? loc[idx[i]] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxPackedWaitDevice_Private - before an exchange of device buffers: waits for the GPU (the kernels queued so far and
  the pack), which PetscSF would do itself before handing the buffers to MPI, under its own event VPXWait, so that
  -log_view tells the host's wait for the GPU apart from the communication (VPXComm: the messages, and the wait for
  the slowest neighbour)
*/
PetscErrorCode DMQBoxPackedWaitDevice_Private(PetscMemType mt)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  if (!PetscMemTypeDevice(mt)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(VPATCH_XWait, 0, 0, 0, 0));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCall(PetscLogEventEnd(VPATCH_XWait, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* forward: the senders' values of src at their send list into the receivers' dst at their receive list; reverse: the
   receivers' values of src at their receive list into the senders' dst at their send list, by the same star forest
   reduced (each root chunk has exactly one leaf chunk, so MPI_REPLACE) */
static PetscErrorCode QBoxPackedMove(DM dm, DMQBoxPacked *x, PetscBool reverse, PetscMemType mt, const PetscScalar *src, PetscScalar *dst, InsertMode imode)
{
  DM_QBox       *q = (DM_QBox *)dm->data;
  PetscScalar   *sbuf, *rbuf, *from, *to;
  const PetscInt nfrom = reverse ? x->nrecv : x->nsend, nto = reverse ? x->nsend : x->nrecv;
  const PetscInt sfrom = reverse ? 1 : 0; /* the list of the values packed (0 send, 1 receive) */

  PetscFunctionBegin;
  PetscCheck(imode == INSERT_VALUES || imode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMQBOX packed exchange: INSERT_VALUES or ADD_VALUES only");
  PetscCall(DMQBoxPackedBuffers_Private(x->buf, x->nbuf, mt, PetscMax(x->nsend, x->nrecv), &sbuf, &rbuf));
  from = reverse ? rbuf : sbuf;
  to   = reverse ? sbuf : rbuf;
  PetscCall(DMQBoxPackedCopy_Private(x, sfrom, 0, nfrom, mt, VP_PACK, from, (PetscScalar *)src));
  PetscCall(DMQBoxPackedWaitDevice_Private(mt));
  PetscCall(PetscLogEventBegin(VPATCH_XComm, 0, 0, 0, 0));
  if (reverse) {
    PetscCall(PetscSFReduceWithMemTypeBegin(x->sf, q->chunk, mt, rbuf, mt, sbuf, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(x->sf, q->chunk, rbuf, sbuf, MPI_REPLACE));
  } else {
    PetscCall(PetscSFBcastWithMemTypeBegin(x->sf, q->chunk, mt, sbuf, mt, rbuf, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(x->sf, q->chunk, sbuf, rbuf, MPI_REPLACE));
  }
  PetscCall(PetscLogEventEnd(VPATCH_XComm, 0, 0, 0, 0));
  if (imode == INSERT_VALUES || !reverse)
    PetscCall(DMQBoxPackedCopy_Private(x, 1 - sfrom, 0, nto, mt, imode == ADD_VALUES ? VP_UNPACK_ADD : VP_UNPACK, to, dst));
  else /* an index in several messages: one message at a time */
    for (PetscInt m = 0; m < x->nsmsg; m++) {
      const PetscInt s = x->smsg[2 * m], n = x->smsg[2 * m + 1];
      PetscCall(DMQBoxPackedCopy_Private(x, 0, s, n, mt, VP_UNPACK_ADD, sbuf + s, dst));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxPackedForward_Private - dst[receive list] = src[send list] across the ranks (INSERT_VALUES), or += (ADD_VALUES; the
  receiver's list must not repeat an index); src and dst of memory type mt. Collective.
*/
PetscErrorCode DMQBoxPackedForward_Private(DM dm, DMQBoxPacked *x, PetscMemType mt, const PetscScalar *src, PetscScalar *dst, InsertMode imode)
{
  PetscFunctionBegin;
  PetscCall(QBoxPackedMove(dm, x, PETSC_FALSE, mt, src, dst, imode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxPackedReverse_Private - the values src[receive list] of the receivers back to their senders: dst[send list] = them
  (INSERT_VALUES) or += them (ADD_VALUES, one message at a time, in rank order, so that an index in several messages
  gets all of them, deterministically). Collective.
*/
PetscErrorCode DMQBoxPackedReverse_Private(DM dm, DMQBoxPacked *x, PetscMemType mt, const PetscScalar *src, PetscScalar *dst, InsertMode imode)
{
  PetscFunctionBegin;
  PetscCall(QBoxPackedMove(dm, x, PETSC_TRUE, mt, src, dst, imode));
  PetscFunctionReturn(PETSC_SUCCESS);
}
