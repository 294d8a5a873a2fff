/*
  DMQBOX exchanges: which buffers the star forests of the packed exchanges (qboxpacked.c: the ghost exchange, the move
  to a gathered level, the exchanges of the multiplicative sweep) hand to MPI.

  PETSc passes device buffers to MPI only when `-use_gpu_aware_mpi` is true, and checks that at start-up with an
  MPI_Allreduce() of device memory on PETSC_COMM_SELF. Some MPIs move device memory in point-to-point messages but not
  in that collective: Open MPI built without CUDA whose pml ucx runs over a CUDA-enabled UCX (`mpiexec --mca pml ucx`)
  is one. For those, `-dm_qbox_exchange_device` lets this DM's star forests (the only communication of the solve's
  exchanges) pass device buffers to MPI while the rest of PETSc stays as it is. Before that, a probe: a device
  buffer sent by this rank to itself (a crash there, caught as PETSc's own check does, means no), then one value
  from every rank this rank receives ghosts from, checked. If any rank says no, every rank keeps the host-staged
  path, and -info and DMView() say so; nothing stops.

  The buffers MPI sees are always the packed exchanges' own (cudaMalloc()), never the vectors' arrays: PETSc allocates
  those from the stream-ordered pool (cudaMallocAsync()), which CUDA IPC cannot export. Measured on 2 x H200 with UCX
  1.20 (cuda_ipc): with direct pool buffers, wrong values arrived (no error) or MPI_ERR_BUFFER; with cudaMalloc()
  buffers, the exchanges are right (measured with a ghost star forest that packed into PetscSF's own buffers; the
  packed exchanges gather into theirs, also cudaMalloc()).

  Every device buffer MPI may see (the star forests' own buffers, the color exchanges' packed buffers, the probe's)
  comes from a process-wide pool and goes back to CUDA only at PetscFinalize(): a freed buffer goes back to the pool
  and is handed out again for a request of the same size class. With UCX's cuda_ipc a peer maps a buffer's allocation
  once and keeps the mapping in a cache keyed by address; when CUDA gave a freed range out again as another allocation,
  that cached mapping went stale: measured with UCX 1.20, a second DMQBOX hierarchy in the same process (bench_solve
  with two solvers, 2 x H200) got "cuIpcOpenMemHandle() failed: resource already mapped" and a solve that diverged, and
  a 4-GPU solve (4 x H200, 256 x 512 x 512 cells of Q_3) "cuIpcOpenMemHandle() failed: operation not permitted" and a
  hang. An address MPI saw now always belongs to the allocation it was. The pool keeps its blocks (buffers of the size
  of a rank's faces, not of its volume) until PetscFinalize(); a later hierarchy of the same sizes reuses them.

  UCX finds device memory only with its memory-type cache off (`UCX_MEMTYPE_CACHE=n`): PETSc's allocations bypass
  the allocation hooks the cache relies on. With the cache on, the self probe crashes (caught) and the path stays
  staged.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petsc/private/sfimpl.h>
#if defined(PETSC_HAVE_CUDA) && defined(__has_include)
#if __has_include(<../src/vec/is/sf/impls/basic/sfpack.h>)
#include <../src/vec/is/sf/impls/basic/sfpack.h> /* PetscSF_Basic: its links (DMQBoxSFDestroy_Private()) */
#define QBOX_SF_BASIC 1
#endif
#endif
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>

/* the pool of device buffers MPI may see (the comment at the top): blocks of a power of two bytes, at least 256 */
typedef struct {
  void     *p;
  size_t    bytes;
  PetscBool used;
} QBoxPoolBlock;
static QBoxPoolBlock *QBoxPool  = NULL;
static PetscInt       QBoxPoolN = 0, QBoxPoolMax = 0;

static PetscErrorCode QBoxPoolFinalize(void)
{
  PetscFunctionBegin;
  /* a block still in use was a star forest's packing buffer that PetscSF gave to cudaFree() itself (a star forest
     destroyed other than by DMQBoxSFDestroy_Private()), or is leaked: not freed twice */
  for (PetscInt i = 0; i < QBoxPoolN; i++)
    if (!QBoxPool[i].used) PetscCallCUDA(cudaFree(QBoxPool[i].p));
  PetscCall(PetscFree(QBoxPool));
  QBoxPoolN = QBoxPoolMax = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxMPIMalloc_Private - a device buffer that MPI may get, from the pool: a free block of the request's size class,
  else a new one (cudaMalloc()). DMQBoxMPIFree_Private() returns it to the pool; CUDA gets the blocks back at
  PetscFinalize().
*/
PetscErrorCode DMQBoxMPIMalloc_Private(size_t bytes, void **p)
{
  size_t b = 256;

  PetscFunctionBegin;
  while (b < bytes) b *= 2;
  for (PetscInt i = 0; i < QBoxPoolN; i++)
    if (!QBoxPool[i].used && QBoxPool[i].bytes == b) {
      QBoxPool[i].used = PETSC_TRUE;
      *p               = QBoxPool[i].p;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  if (QBoxPoolN == QBoxPoolMax) {
    QBoxPoolBlock *grown;

    if (!QBoxPoolMax) PetscCall(PetscRegisterFinalize(QBoxPoolFinalize));
    QBoxPoolMax = PetscMax(64, 2 * QBoxPoolMax);
    PetscCall(PetscMalloc1(QBoxPoolMax, &grown));
    if (QBoxPoolN) PetscCall(PetscArraycpy(grown, QBoxPool, QBoxPoolN));
    PetscCall(PetscFree(QBoxPool));
    QBoxPool = grown;
  }
  PetscCallCUDA(cudaMalloc(p, b));
  QBoxPool[QBoxPoolN].p     = *p;
  QBoxPool[QBoxPoolN].bytes = b;
  QBoxPool[QBoxPoolN].used  = PETSC_TRUE;
  QBoxPoolN++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxMPIFree_Private(void *p)
{
  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < QBoxPoolN; i++)
    if (QBoxPool[i].p == p) {
      PetscCheck(QBoxPool[i].used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX: a device buffer of the exchanges was given back twice");
      QBoxPool[i].used = PETSC_FALSE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX: a device buffer given back to the exchanges' pool did not come from it");
}
#endif

#if defined(QBOX_SF_BASIC)
#include <setjmp.h>
#include <signal.h>

/* the transport probe's result, for this process: it is a property of the MPI (0 not probed, 1 device buffers, -1 host) */
static int QBoxDeviceMPI = 0;

/* a star forest's allocator once it hands device buffers to MPI: its device buffers from the pool */
static PetscErrorCode QBoxSFMalloc(PetscMemType mtype, size_t bytes, void **p)
{
  PetscFunctionBegin;
  if (PetscMemTypeDevice(mtype))
    PetscCall(DMQBoxMPIMalloc_Private(bytes, p));
  else
    PetscCall(PetscMalloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode QBoxSFFree(PetscMemType mtype, void *p)
{
  PetscFunctionBegin;
  if (PetscMemTypeDevice(mtype))
    PetscCall(DMQBoxMPIFree_Private(p));
  else
    PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static sigjmp_buf            QBoxProbeJump;
static volatile sig_atomic_t QBoxProbeArmed = 0;

static PetscErrorCode QBoxProbeSignal(int sig, void *ctx)
{
  if (sig == SIGSEGV && QBoxProbeArmed) siglongjmp(QBoxProbeJump, 1);
  return PetscSignalHandlerDefault(sig, ctx);
}

/* a device buffer sent to this rank itself: true when it arrives (an MPI that copies it as host memory crashes, caught) */
static PetscErrorCode QBoxProbeSelf(PetscBool *ok)
{
  PetscInt           h[2] = {7, 0}, *d = NULL;
  volatile PetscBool arrived = PETSC_FALSE; /* set between sigsetjmp() and a possible siglongjmp() */

  PetscFunctionBegin;
  PetscCall(DMQBoxMPIMalloc_Private(sizeof(h), (void **)&d));
  PetscCallCUDA(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  PetscCall(PetscPushSignalHandler(QBoxProbeSignal, NULL));
  QBoxProbeArmed = 1;
  if (!sigsetjmp(QBoxProbeJump, 1)) arrived = (PetscBool)(MPI_Sendrecv(d, 1, MPIU_INT, 0, 0, d + 1, 1, MPIU_INT, 0, 0, PETSC_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  QBoxProbeArmed = 0;
  PetscCall(PetscPopSignalHandler());
  if (arrived) PetscCallCUDA(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  PetscCall(DMQBoxMPIFree_Private(d));
  *ok = (PetscBool)(arrived && h[1] == 7);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one value, rank + 1, from every rank whose roots sf's leaves reference, through device buffers; true when all arrived */
static PetscErrorCode QBoxProbeNeighbors(PetscSF sf, PetscBool *ok)
{
  PetscSF            probe;
  PetscMPIInt        rank, nranks;
  const PetscMPIInt *ranks;
  const PetscInt    *roffset, *rmine, *rremote;
  PetscSFNode       *iremote;
  PetscInt           root, *leaves, *d_root = NULL, *d_leaves = NULL, bad = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sf), &rank));
  PetscCall(PetscSFGetRootRanks(sf, &nranks, &ranks, &roffset, &rmine, &rremote));
  PetscCall(PetscMalloc2(nranks, &iremote, nranks + 1, &leaves));
  for (PetscMPIInt i = 0; i < nranks; i++) {
    iremote[i].rank  = ranks[i];
    iremote[i].index = 0;
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)sf), &probe));
  PetscCall(PetscSFSetGraph(probe, 1, nranks, NULL, PETSC_OWN_POINTER, iremote, PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(probe));
  probe->use_gpu_aware_mpi = PETSC_TRUE;
  probe->ops->Malloc       = QBoxSFMalloc;
  probe->ops->Free         = QBoxSFFree;
  root                     = rank + 1;
  PetscCall(DMQBoxMPIMalloc_Private(sizeof(PetscInt), (void **)&d_root));
  PetscCall(DMQBoxMPIMalloc_Private((nranks + 1) * sizeof(PetscInt), (void **)&d_leaves));
  PetscCallCUDA(cudaMemcpy(d_root, &root, sizeof(PetscInt), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemset(d_leaves, 0, (nranks + 1) * sizeof(PetscInt)));
  PetscCall(PetscSFBcastWithMemTypeBegin(probe, MPIU_INT, PETSC_MEMTYPE_DEVICE, d_root, PETSC_MEMTYPE_DEVICE, d_leaves, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(probe, MPIU_INT, d_root, d_leaves, MPI_REPLACE));
  PetscCallCUDA(cudaMemcpy(leaves, d_leaves, (nranks + 1) * sizeof(PetscInt), cudaMemcpyDeviceToHost));
  for (PetscMPIInt i = 0; i < nranks; i++) bad += leaves[i] != ranks[i] + 1;
  PetscCall(DMQBoxMPIFree_Private(d_root));
  PetscCall(DMQBoxMPIFree_Private(d_leaves));
  PetscCall(DMQBoxSFDestroy_Private(&probe));
  PetscCall(PetscFree2(iremote, leaves));
  *ok = (PetscBool)!bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
  DMQBoxSFDestroy_Private - PetscSFDestroy() of this DM's star forests. PetscSF gives the packing buffers of its links
  to cudaFree() itself; those of a star forest that draws on the pool go back to the pool first, when this is its last
  reference.
*/
PetscErrorCode DMQBoxSFDestroy_Private(PetscSF *sf)
{
  PetscFunctionBegin;
  if (!*sf) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(QBOX_SF_BASIC)
  if (((PetscObject)*sf)->refct == 1 && (*sf)->ops->Malloc == QBoxSFMalloc) {
    PetscSF_Basic *bas = (PetscSF_Basic *)(*sf)->data;

    PetscCheck(!bas->inuse, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "DMQBOX: a star forest destroyed during an exchange (a begin without its end)");
    for (PetscSFLink link = bas->avail; link; link = link->next)
      for (int i = PETSCSF_LOCAL; i <= PETSCSF_REMOTE; i++) {
        PetscCall(DMQBoxMPIFree_Private(link->rootbuf_alloc[i][PETSC_MEMTYPE_DEVICE]));
        PetscCall(DMQBoxMPIFree_Private(link->leafbuf_alloc[i][PETSC_MEMTYPE_DEVICE]));
        link->rootbuf_alloc[i][PETSC_MEMTYPE_DEVICE] = link->leafbuf_alloc[i][PETSC_MEMTYPE_DEVICE] = NULL;
      }
  }
#endif
  PetscCall(PetscSFDestroy(sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxExchangeTransport_Private - called on each of this DM's star forests after PetscSFSetUp(): with
  -dm_qbox_exchange_device on CUDA vectors and several ranks, probe once (collective on the DM's communicator, as
  the star forests' creation is) and hand device buffers to MPI when every rank's probe passed. The star forests
  move the packed exchanges' buffers (qboxpacked.c, from the pool above), which MPI may get as they are.
*/
PetscErrorCode DMQBoxExchangeTransport_Private(DM dm, PetscSF sf)
{
  DM_QBox    *q = (DM_QBox *)dm->data;
  PetscMPIInt size;
  PetscBool   cuda;

  PetscFunctionBegin;
  q->exchange = DMQBOX_EXCHANGE_HOST;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
  if (size == 1 || !cuda) PetscFunctionReturn(PETSC_SUCCESS);
  if (use_gpu_aware_mpi) { /* PETSc passes device buffers to MPI anyway */
    q->exchange = DMQBOX_EXCHANGE_DEVICE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!q->exchdevice) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA) && defined(QBOX_SF_BASIC)
  PetscBool basic;

  PetscCall(PetscObjectTypeCompareAny((PetscObject)sf, &basic, PETSCSFBASIC, PETSCSFNEIGHBOR, ""));
  if (!basic) {
    PetscCall(PetscInfo(dm, "-dm_qbox_exchange_device: star forest type %s (not basic or neighbor); the exchanges stay staged through host memory\n", ((PetscObject)sf)->type_name));
    q->exchange = DMQBOX_EXCHANGE_HOST_PROBED;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!QBoxDeviceMPI) {
    PetscBool pass;
    int       ok;
    PetscCall(QBoxProbeSelf(&pass));
    ok = pass;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)dm)));
    if (!ok)
      PetscCall(PetscInfo(dm, "-dm_qbox_exchange_device: MPI did not take a device buffer on some rank (PETSC_COMM_SELF); the exchanges stay staged through host memory\n"));
    else {
      PetscCall(QBoxProbeNeighbors(sf, &pass));
      ok = pass;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)dm)));
      if (!ok)
        PetscCall(PetscInfo(dm, "-dm_qbox_exchange_device: a value sent between ranks in device memory arrived wrong; the exchanges stay staged through host memory\n"));
      else
        PetscCall(PetscInfo(dm, "-dm_qbox_exchange_device: MPI moves device buffers between ranks; the exchanges pass them directly\n"));
    }
    QBoxDeviceMPI = ok ? 1 : -1;
  }
  if (QBoxDeviceMPI > 0) {
    sf->use_gpu_aware_mpi = PETSC_TRUE;
    sf->ops->Malloc       = QBoxSFMalloc; /* before its first exchange, which allocates its buffers */
    sf->ops->Free         = QBoxSFFree;
    q->exchange           = DMQBOX_EXCHANGE_DEVICE;
  } else
    q->exchange = DMQBOX_EXCHANGE_HOST_PROBED;
#else
  PetscCall(PetscInfo(dm, "-dm_qbox_exchange_device: this PETSc's source tree (sfpack.h) is not at hand; the exchanges stay staged through host memory\n"));
  q->exchange = DMQBOX_EXCHANGE_HOST_PROBED;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
