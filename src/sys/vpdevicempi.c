/*
  Device buffers to MPI: which buffers the star forests of the exchanges hand to MPI when the vectors live on the GPU.
  DMQBOX's exchanges (qboxmpi.c) and PCAUXAMG's scatters and transfers use it.

  PETSc passes device buffers to MPI only when `-use_gpu_aware_mpi` is true, and checks that at start-up with an
  MPI_Allreduce() of device memory on PETSC_COMM_SELF. Some MPIs move device memory in point-to-point messages but not
  in that collective: Open MPI built without CUDA whose pml ucx runs over a CUDA-enabled UCX (`mpiexec --mca pml ucx`)
  is one. For those, VPSFDeviceMPI_Private() lets one star forest pass device buffers to MPI while the rest of PETSc
  stays as it is. Before that, a probe: a device buffer sent by this rank to itself (a crash there, caught as PETSc's
  own check does, means no), then one value from every rank this rank receives from, checked. If any rank says no,
  every rank keeps the host-staged path, and -info says so; nothing stops.

  MPI never sees a vector's array: PETSc allocates those from the stream-ordered pool (cudaMallocAsync()), which CUDA
  IPC cannot export. Measured on 2 x H200 with UCX 1.20 (cuda_ipc): with direct pool buffers, wrong values arrived (no
  error) or MPI_ERR_BUFFER; with cudaMalloc() buffers, the exchanges are right. So a star forest whose data are
  vectors' arrays is made to pack its remote part always (PetscSF would otherwise hand a contiguous run of the array
  to MPI as it is), and its packing buffers are cudaMalloc() blocks.

  Every device buffer MPI may see (the star forests' own buffers, the DM's packed buffers, the probe's) comes from a
  process-wide pool and goes back to CUDA only at PetscFinalize(): a freed buffer goes back to the pool and is handed
  out again for a request of the same size class. With UCX's cuda_ipc a peer maps a buffer's allocation once and keeps
  the mapping in a cache keyed by address; when CUDA gave a freed range out again as another allocation, that cached
  mapping went stale: measured with UCX 1.20, a second DMQBOX hierarchy in the same process (bench_solve with two
  solvers, 2 x H200) got "cuIpcOpenMemHandle() failed: resource already mapped" and a solve that diverged, and a 4-GPU
  solve (4 x H200, 256 x 512 x 512 cells of Q_3) "cuIpcOpenMemHandle() failed: operation not permitted" and a hang. An
  address MPI saw now always belongs to the allocation it was. The pool keeps its blocks (buffers of the size of a
  rank's faces, not of its volume) until PetscFinalize(); a later hierarchy of the same sizes reuses them. PetscSF
  gives its links' packing buffers to cudaFree() itself: a star forest that draws on the pool is destroyed by
  VPSFDestroy_Private(), or its buffers go back by VPSFReleaseDeviceBuffers_Private() before its owner destroys it.

  UCX finds device memory only with its memory-type cache off (`UCX_MEMTYPE_CACHE=n`): PETSc's allocations bypass
  the allocation hooks the cache relies on. With the cache on, the self probe crashes (caught) and the path stays
  staged.
*/
#include <petscvpatch/private/vpatchimpl.h>
#include <petsc/private/sfimpl.h>
#if defined(PETSC_HAVE_CUDA) && defined(__has_include)
#if __has_include(<../src/vec/is/sf/impls/basic/sfpack.h>)
#include <../src/vec/is/sf/impls/basic/sfpack.h> /* PetscSF_Basic: its links and packing fields */
#define VP_SF_BASIC 1
#endif
#endif
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>

/* the pool of device buffers MPI may see (the comment at the top): blocks of a power of two bytes, at least 256 */
typedef struct {
  void     *p;
  size_t    bytes;
  PetscBool used;
} VPPoolBlock;
static VPPoolBlock *VPPool  = NULL;
static PetscInt     VPPoolN = 0, VPPoolMax = 0;

static PetscErrorCode VPPoolFinalize(void)
{
  PetscFunctionBegin;
  /* a block still in use was a star forest's packing buffer that PetscSF gave to cudaFree() itself (a star forest
     destroyed other than by VPSFDestroy_Private()), or is leaked: not freed twice */
  for (PetscInt i = 0; i < VPPoolN; i++)
    if (!VPPool[i].used) PetscCallCUDA(cudaFree(VPPool[i].p));
  PetscCall(PetscFree(VPPool));
  VPPoolN = VPPoolMax = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VPDeviceMPIMalloc_Private - a device buffer that MPI may get, from the pool: a free block of the request's size class,
  else a new one (cudaMalloc()). VPDeviceMPIFree_Private() returns it to the pool; CUDA gets the blocks back at
  PetscFinalize().
*/
PetscErrorCode VPDeviceMPIMalloc_Private(size_t bytes, void **p)
{
  size_t b = 256;

  PetscFunctionBegin;
  while (b < bytes) b *= 2;
  for (PetscInt i = 0; i < VPPoolN; i++)
    if (!VPPool[i].used && VPPool[i].bytes == b) {
      VPPool[i].used = PETSC_TRUE;
      *p             = VPPool[i].p;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  if (VPPoolN == VPPoolMax) {
    VPPoolBlock *grown;

    if (!VPPoolMax) PetscCall(PetscRegisterFinalize(VPPoolFinalize));
    VPPoolMax = PetscMax(64, 2 * VPPoolMax);
    PetscCall(PetscMalloc1(VPPoolMax, &grown));
    if (VPPoolN) PetscCall(PetscArraycpy(grown, VPPool, VPPoolN));
    PetscCall(PetscFree(VPPool));
    VPPool = grown;
  }
  PetscCallCUDA(cudaMalloc(p, b));
  VPPool[VPPoolN].p     = *p;
  VPPool[VPPoolN].bytes = b;
  VPPool[VPPoolN].used  = PETSC_TRUE;
  VPPoolN++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pool's block that starts at p, or -1 */
static PetscInt VPPoolFind(const void *p)
{
  for (PetscInt i = 0; i < VPPoolN; i++)
    if (VPPool[i].p == p) return i;
  return -1;
}

PetscErrorCode VPDeviceMPIFree_Private(void *p)
{
  PetscInt i;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  i = VPPoolFind(p);
  PetscCheck(i >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a device buffer given back to the exchanges' pool did not come from it");
  PetscCheck(VPPool[i].used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a device buffer of the exchanges was given back twice");
  VPPool[i].used = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(VP_SF_BASIC)
#include <setjmp.h>
#include <signal.h>

/* the transport probe's result, for this process: it is a property of the MPI (0 not probed, 1 device buffers, -1 host) */
static int VPDeviceMPI = 0;

/* a star forest's allocator once it hands device buffers to MPI: its device buffers from the pool */
static PetscErrorCode VPSFMalloc(PetscMemType mtype, size_t bytes, void **p)
{
  PetscFunctionBegin;
  if (PetscMemTypeDevice(mtype))
    PetscCall(VPDeviceMPIMalloc_Private(bytes, p));
  else
    PetscCall(PetscMalloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VPSFFree(PetscMemType mtype, void *p)
{
  PetscFunctionBegin;
  if (PetscMemTypeDevice(mtype) && p) {
    if (VPPoolFind(p) >= 0)
      PetscCall(VPDeviceMPIFree_Private(p));
    else
      PetscCallCUDA(cudaFree(p)); /* the device copy of its indices made before the switch (PetscSF's own, cudaMalloc()): MPI never saw it */
  } else
    PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static sigjmp_buf            VPProbeJump;
static volatile sig_atomic_t VPProbeArmed = 0;

static PetscErrorCode VPProbeSignal(int sig, void *ctx)
{
  if (sig == SIGSEGV && VPProbeArmed) siglongjmp(VPProbeJump, 1);
  return PetscSignalHandlerDefault(sig, ctx);
}

/* a device buffer sent to this rank itself: true when it arrives (an MPI that copies it as host memory crashes, caught) */
static PetscErrorCode VPProbeSelf(PetscBool *ok)
{
  PetscInt           h[2] = {7, 0}, *d = NULL;
  volatile PetscBool arrived = PETSC_FALSE; /* set between sigsetjmp() and a possible siglongjmp() */

  PetscFunctionBegin;
  PetscCall(VPDeviceMPIMalloc_Private(sizeof(h), (void **)&d));
  PetscCallCUDA(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  PetscCall(PetscPushSignalHandler(VPProbeSignal, NULL));
  VPProbeArmed = 1;
  if (!sigsetjmp(VPProbeJump, 1)) arrived = (PetscBool)(MPI_Sendrecv(d, 1, MPIU_INT, 0, 0, d + 1, 1, MPIU_INT, 0, 0, PETSC_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  VPProbeArmed = 0;
  PetscCall(PetscPopSignalHandler());
  if (arrived) PetscCallCUDA(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  PetscCall(VPDeviceMPIFree_Private(d));
  *ok = (PetscBool)(arrived && h[1] == 7);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one value, rank + 1, from every rank whose roots sf's leaves reference, through device buffers; true when all arrived */
static PetscErrorCode VPProbeNeighbors(PetscSF sf, PetscBool *ok)
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
  probe->ops->Malloc       = VPSFMalloc;
  probe->ops->Free         = VPSFFree;
  root                     = rank + 1;
  PetscCall(VPDeviceMPIMalloc_Private(sizeof(PetscInt), (void **)&d_root));
  PetscCall(VPDeviceMPIMalloc_Private((nranks + 1) * sizeof(PetscInt), (void **)&d_leaves));
  PetscCallCUDA(cudaMemcpy(d_root, &root, sizeof(PetscInt), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemset(d_leaves, 0, (nranks + 1) * sizeof(PetscInt)));
  PetscCall(PetscSFBcastWithMemTypeBegin(probe, MPIU_INT, PETSC_MEMTYPE_DEVICE, d_root, PETSC_MEMTYPE_DEVICE, d_leaves, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(probe, MPIU_INT, d_root, d_leaves, MPI_REPLACE));
  PetscCallCUDA(cudaMemcpy(leaves, d_leaves, (nranks + 1) * sizeof(PetscInt), cudaMemcpyDeviceToHost));
  for (PetscMPIInt i = 0; i < nranks; i++) bad += leaves[i] != ranks[i] + 1;
  PetscCall(VPDeviceMPIFree_Private(d_root));
  PetscCall(VPDeviceMPIFree_Private(d_leaves));
  PetscCall(VPSFDestroy_Private(&probe));
  PetscCall(PetscFree2(iremote, leaves));
  *ok = (PetscBool)!bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
  VPSFReleaseDeviceBuffers_Private - the packing buffers of a star forest that draws on the pool go back to it; call it
  just before the star forest's owner destroys it (PetscSF would give them to cudaFree() itself). Only when this is
  the star forest's last reference: else nothing.
*/
PetscErrorCode VPSFReleaseDeviceBuffers_Private(PetscSF sf)
{
  PetscFunctionBegin;
  if (!sf) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(VP_SF_BASIC)
  if (((PetscObject)sf)->refct == 1 && sf->ops->Malloc == VPSFMalloc) {
    PetscSF_Basic *bas = (PetscSF_Basic *)sf->data;

    PetscCheck(!bas->inuse, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "a star forest destroyed during an exchange (a begin without its end)");
    for (PetscSFLink link = bas->avail; link; link = link->next)
      for (int i = PETSCSF_LOCAL; i <= PETSCSF_REMOTE; i++) {
        PetscCall(VPDeviceMPIFree_Private(link->rootbuf_alloc[i][PETSC_MEMTYPE_DEVICE]));
        PetscCall(VPDeviceMPIFree_Private(link->leafbuf_alloc[i][PETSC_MEMTYPE_DEVICE]));
        link->rootbuf_alloc[i][PETSC_MEMTYPE_DEVICE] = link->leafbuf_alloc[i][PETSC_MEMTYPE_DEVICE] = NULL;
      }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VPSFDestroy_Private - PetscSFDestroy() of a star forest that may draw on the pool: its buffers go back first */
PetscErrorCode VPSFDestroy_Private(PetscSF *sf)
{
  PetscFunctionBegin;
  if (!*sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPSFReleaseDeviceBuffers_Private(*sf));
  PetscCall(PetscSFDestroy(sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VPSFDeviceMPI_Private - collective on sf's communicator: let sf hand device buffers to MPI when every rank's probe
  passes (the probe runs once per process, on the first star forest asked; its result holds for the process, being a
  property of the MPI). vecdata: sf's roots or leaves are vectors' arrays, so its remote part is always packed into the
  pool's buffers. *device: whether sf's device data now reach MPI in device buffers: true also under
  -use_gpu_aware_mpi (PETSc passes them already); false on one rank, for a star forest that is not of type basic or
  neighbor, and in a PETSc installed without its source tree (sfpack.h).
*/
PetscErrorCode VPSFDeviceMPI_Private(PetscSF sf, PetscBool vecdata, PetscBool *device)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)sf);
  PetscMPIInt size;

  PetscFunctionBegin;
  *device = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  if (use_gpu_aware_mpi) {
    *device = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(VP_SF_BASIC)
  PetscBool basic;

  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)sf, &basic, PETSCSFBASIC, PETSCSFNEIGHBOR, ""));
  if (!basic) {
    PetscCall(PetscInfo(sf, "device buffers to MPI: star forest type %s (not basic or neighbor); its exchanges stay staged through host memory\n", ((PetscObject)sf)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!VPDeviceMPI) {
    PetscBool pass;
    int       ok;
    PetscCall(VPProbeSelf(&pass));
    ok = pass;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
    if (!ok)
      PetscCall(PetscInfo(sf, "device buffers to MPI: MPI did not take a device buffer on some rank (PETSC_COMM_SELF); the exchanges stay staged through host memory\n"));
    else {
      PetscCall(VPProbeNeighbors(sf, &pass));
      ok = pass;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
      if (!ok)
        PetscCall(PetscInfo(sf, "device buffers to MPI: a value sent between ranks in device memory arrived wrong; the exchanges stay staged through host memory\n"));
      else
        PetscCall(PetscInfo(sf, "device buffers to MPI: MPI moves device buffers between ranks; the exchanges pass them directly\n"));
    }
    VPDeviceMPI = ok ? 1 : -1;
  }
  if (VPDeviceMPI > 0 && sf->ops->Malloc != VPSFMalloc) {
    PetscSF_Basic *bas = (PetscSF_Basic *)sf->data;

    /* packing buffers of earlier exchanges (PetscSF's cudaMalloc(), never seen by MPI: the exchanges were staged) go
       back to CUDA now; the next exchange takes the pool's */
    PetscCheck(!bas->inuse, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "a star forest switched to device buffers during an exchange (a begin without its end)");
    for (PetscSFLink link = bas->avail; link; link = link->next)
      for (int i = PETSCSF_LOCAL; i <= PETSCSF_REMOTE; i++) {
        PetscCall(PetscSFFree(sf, PETSC_MEMTYPE_DEVICE, link->rootbuf_alloc[i][PETSC_MEMTYPE_DEVICE]));
        PetscCall(PetscSFFree(sf, PETSC_MEMTYPE_DEVICE, link->leafbuf_alloc[i][PETSC_MEMTYPE_DEVICE]));
        link->rootbuf_alloc[i][PETSC_MEMTYPE_DEVICE] = link->leafbuf_alloc[i][PETSC_MEMTYPE_DEVICE] = NULL;
      }
    sf->use_gpu_aware_mpi = PETSC_TRUE;
    sf->ops->Malloc       = VPSFMalloc; /* before its first exchange on device data, which allocates its buffers */
    sf->ops->Free         = VPSFFree;
    if (vecdata) { /* never a run of a vector's array to MPI (the comment at the top) */
      bas->rootcontig[PETSCSF_REMOTE] = PETSC_FALSE;
      sf->leafcontig[PETSCSF_REMOTE]  = PETSC_FALSE;
    }
  }
  *device = (PetscBool)(VPDeviceMPI > 0);
#else
  (void)vecdata;
  PetscCall(PetscInfo(sf, "device buffers to MPI: this PETSc's source tree (sfpack.h) is not at hand; the exchanges stay staged through host memory\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
