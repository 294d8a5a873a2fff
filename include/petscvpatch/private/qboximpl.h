/* Private data of DMQBOX */
#pragma once

#include <petscvpatch/private/vpatchimpl.h>
#include <petsc/private/dmimpl.h>
#include <petscvpatch/private/vpflops.h>
#include <petscvpatch/private/vpdg.h>

/* what the star forests of the exchanges hand to MPI (qboxmpi.c) */
typedef enum {
  DMQBOX_EXCHANGE_HOST,        /* host buffers: device data staged through host memory (or host vectors) */
  DMQBOX_EXCHANGE_DEVICE,      /* device buffers (-use_gpu_aware_mpi, or -dm_qbox_exchange_device after a passed probe) */
  DMQBOX_EXCHANGE_HOST_PROBED, /* host buffers: -dm_qbox_exchange_device was asked for and the probe failed */
} DMQBoxExchange;

#define DMQBOX_CHUNK 64 /* values per leaf of the packed exchanges' star forests */

/* the messages of one side of a packed exchange (qboxpacked.c): per peer rank (ascending, after
   DMQBoxPeersLayout_Private()) the count and the first entry in the packed buffer (chunk aligned) */
typedef struct {
  PetscInt     n, cap;
  PetscMPIInt *rank;
  PetscInt    *count, *start, *fill;
} DMQBoxPeers;

/* a packed exchange (qboxpacked.c): the ghost exchange, the move to a gathered level, each patch color's exchange */
typedef struct {
  PetscSF  sf;           /* one leaf per chunk: roots in the packed send buffer, leaves in the receive buffer */
  PetscInt nsend, nrecv; /* packed values (whole chunks) */
  /* the lists of both sides, send [0] and receive [1]: the index of each packed value in the sender's / receiver's
     array, -1 for padding. Made as runs of consecutive indices (a row of nodes each, at most), three entries per run:
     the first index, the length, the position in the packed buffer; the lists value by value are expanded from them on
     the device at set-up (CUDA vectors) and on the host on a host exchange's first use, so the set-up's host work and
     copies go with the number of rows, not of values */
  PetscInt     nrun[2], maxrun[2], *run[2];
  PetscInt    *idx[2], *d_idx[2];
  PetscInt     nsmsg, *smsg; /* the send side's messages: start and count of each (the reverse adds) */
  PetscScalar *buf[2][2];    /* own packed buffers, send and receive, host [0] and device [1] (the color exchanges use the DM's) */
  PetscInt     nbuf[2];
} DMQBoxPacked;
typedef DMQBoxPacked DMQBoxColorExchange; /* the exchange of one group of patch colors in the multiplicative sweep (qboxcolor.c) */

typedef struct {
  PetscInt            dim;           /* spatial dimension, 2 or 3 */
  PetscInt            degree;        /* Q_k degree */
  PetscInt            cells[3];      /* global cells per direction */
  PetscReal           lower[3];      /* box lower corner */
  PetscReal           upper[3];      /* box upper corner */
  PetscInt            procsopt[3];   /* the process grid asked for (-dm_qbox_procs), 0: chosen (least interface area) */
  PetscInt            procs[3];      /* process grid: ranks 0 .. procs[0] procs[1] procs[2] - 1 own cells, any others none (a gathered level) */
  PetscInt           *lc[3];         /* cells owned by each process column, per direction */
  PetscInt            cellstart[3];  /* first cell owned by this rank per direction */
  DM                  da;            /* node-level DMDA (ghost width k, box stencil): natural ordering, exchanges other than INSERT/ADD; made on first use */
  DMQBoxPacked        ghostx;        /* the ghost exchange: the owned nodes in other ranks' local boxes to those ranks (qboxexchange.c); made on first use */
  DMQBoxColorExchange colorx[8];     /* per group of patch colors (c >> DMQBoxColorGroupBits_Private()): the values other ranks' patches of its colors change (qboxcolor.c) */
  PetscScalar        *xbuf[2][2];    /* the color exchanges' packed send and receive buffers, host [0] and device [1] */
  PetscInt            nxbuf[2];      /* their lengths */
  MPI_Datatype        chunk;         /* the color star forests' unit */
  VPGrid              grid;          /* plain description of this rank's part, for the kernels */
  VPBasis1D           basis;         /* 1D reference matrices */
  PetscReal          *coords1d[3];   /* global node coordinates per direction */
  PetscBool           storecoords;   /* set DM coordinates at set-up (-dm_qbox_coordinates) */
  PetscBool           deterministic; /* CUDA operator: colored cells (2D) or boxes of cells (3D) instead of atomics (-dm_qbox_deterministic) */
  PetscBool           samelayout;    /* the ghosted local box is the owned box (one rank): kernels may work on global arrays */
  PetscBool           vecmdot;       /* CUDA global vectors: VecMDot by our kernel (-dm_qbox_vec_mdot, qboxveccuda.c) */
  PetscBool           vecaypx;       /* CUDA global vectors: VecAYPX in one pass by our kernel (-dm_qbox_vec_aypx, qboxveccuda.c) */
  PetscBool           veclong;       /* CUDA vectors: the operations of vectors past 2^31 - 1 values per rank on every vector (-dm_qbox_vec_long, qboxveccuda.c) */
  PetscBool           veclongknown;  /* veclongglobal is known (decided at the first global vector) */
  PetscBool           veclongglobal; /* a rank's global vectors hold more than 2^31 - 1 values: every rank's take those operations */
  PetscBool           fusedres;      /* CUDA, one rank: MatResidual of the operator in one pass (-dm_qbox_fused_residual, laplacian.c) */
  PetscBool           exchdevice;    /* -dm_qbox_exchange_device: device buffers to MPI after a probe (qboxmpi.c) */
  PetscBool           ghostedvecs;   /* -dm_qbox_ghosted_vectors: global vectors inside ghosted buffers where the partition is slabs (qboxghosted.c) */
  PetscBool           gather;        /* -dm_qbox_gather: DMCoarsen() may gather the coarse level onto rank 0 (qboxhier.c) */
  PetscInt            gathercells;   /* -dm_qbox_gather_cells: ... once it would have fewer cells than this in all */
  PetscInt            gatherstage;   /* -dm_qbox_gather_stage: a gathering coarsening divides the ranks that own cells by about this factor (qboxhier.c) */
  PetscBool           active;        /* this rank owns cells (ranks past the process grid of a gathered level own none) */
  PetscBool           slab;          /* several ranks, and the partition cuts the slowest direction only: a rank's owned nodes are one run of its local box */
  DMQBoxExchange      exchange;      /* what the exchanges hand to MPI, known once a star forest exists */
  PetscBool           dg;            /* discontinuous Q_k (SIPG): (k+1) nodes per cell and direction, no shared nodes (-dm_qbox_dg) */
  PetscReal           dgpenalty;     /* SIPG penalty factor C: sigma = C k (k+1) / h (-dm_qbox_dg_penalty) */
  VPDG1D              dg1d[3];       /* DG: the 1D SIPG and mass blocks of each direction (src/sys/dg1d.c) */
  PetscReal          *d_dg;          /* DG, CUDA: device copy of dg1d (read as VPDG1D[dim]) and of the embedding blocks (DMQBoxGetDeviceDG_Private()) */
  PetscReal          *d_dgembed;
  VPWeights           opweights;   /* DMCreateMatrix() gives opweights.mass M + opweights.stiff K (DMQBoxSetOperatorWeights(); DMCoarsen() and DMRefine() keep them) */
  VPPrecision         precision;   /* CUDA arithmetic of this level's operator and of the transfers to its refinement */
  VPPrecision         mgprecision; /* precision given to the levels created by DMCoarsen() */
  PetscReal          *d_lap;       /* device copy of M_h, K_h per direction (CUDA kernels), or NULL */
  /* the operator -div(a grad u) on a mapped box (qboxgeo.c); both NONE/ONE: the Cartesian Laplacian and its fast path */
  DMQBoxMappingType     maptype;
  DMQBoxMapping         map;    /* the map of the box (built-in or the user's) */
  void                 *mapctx; /* its context (the built-ins: this DM_QBox) */
  DMQBoxCoefficientType coeftype;
  DMQBoxCoefficient     coef;       /* the coefficient (built-in or the user's) */
  void                 *coefctx;    /* its context */
  PetscReal             radii[2];   /* shell: inner and outer radius (-dm_qbox_shell_radii) */
  PetscReal             amplitude;  /* deformed box: A (-dm_qbox_deform_amplitude) */
  PetscReal             contrast;   /* oscillatory coefficient: c (-dm_qbox_coefficient_contrast) */
  PetscBool             geofly;     /* -dm_qbox_geometry_onthefly: the CUDA operator (3D, built-in map and coefficient) computes its factors itself */
  PetscBool             split;      /* -dm_qbox_geometry_split: where float factors are asked for, the double ones kept as float halves (d_geolo) */
  PetscInt              splitchunk; /* -dm_qbox_geometry_split_chunk: MB, at least, of a chunk of d_geolo */
  PetscReal            *geo;        /* per owned cell and quadrature point (k+1 Gauss points per direction) the symmetric w a det(J) J^-1 J^-T:
                                      [cell][component][point], components 00 11 (22) 01 (02 12); NULL until first use (VPGeometryComponents()) */
  PetscReal            *d_geo;      /* its device copy (cgeo's memory), or NULL */
  float                *d_geof;     /* single precision (-dm_qbox_precision single): the device copy in float, read by the operator kernel */
  float                *d_geolo;    /* 3D, double: where d_geof was asked for, d_geo freed and kept as d_geof + d_geolo (cglo's memory; DMQBoxGetGeometryFloat_Private()) */
  VPChunked             cgeo, cglo; /* the memory of d_geo and d_geolo, mapped in chunks: the split releases d_geo's as it makes d_geolo's */
  PetscReal            *lgeo;       /* the factors of the layer of cells below this rank's (VPLayerCellIndex()), for the vertex patches that cover them; made on first use */
  PetscReal            *d_lgeo;     /* its device copy */
  float                *d_lgeof;    /* and in float */
  PetscReal            *mgeo;       /* per owned cell and Gauss point w det(J), the mass matrix's factor [cell][point]; NULL until a mass term needs it */
  PetscReal            *d_mgeo;     /* its device copy, or NULL */
} DM_QBox;

/* the operator is not the Cartesian Laplacian: a mapped box or a coefficient */
static inline PetscBool DMQBoxIsGeneral_Private(const DM_QBox *q)
{
  return (PetscBool)(q->maptype != DMQBOX_MAPPING_NONE || q->coeftype != DMQBOX_COEFFICIENT_ONE);
}

PETSC_INTERN PetscErrorCode DMCreateGlobalVector_QBox(DM, Vec *);
PETSC_INTERN PetscErrorCode DMQBoxMatCreateVecs_Private(DM, DM, Vec *, Vec *);
PETSC_INTERN PetscErrorCode DMQBoxLocalToGlobalSum_Private(DM, Vec, Vec);
/* The ghosted array of a global vector for a kernel (qboxghosted.c): the vector's own ghosted buffer where it has one
   (-dm_qbox_ghosted_vectors), else a local vector of the DM's pool. In: ghosts filled from their owners; in-out: the
   same, and at restore the owned part is the vector's; in-out-zero: in-out of a vector the caller knows to be 0
   everywhere (its ghosts zeroed, no exchange); out-sum: zero, and at restore the vector is the sum of every rank's
   contributions; out-add: at restore the contributions are added to the vector; out-owned: zero, the caller computes
   every owned entry in full (the cells of the ghost layer below included), and at restore the owned part is the
   vector's (no exchange); add-owned: out-add where the caller adds to owned entries only (no exchange). With the
   vector's own buffer, in and in-out skip the exchange where the vector has not changed since its ghosts were last
   filled (its object state). */
typedef enum {
  DMQBOX_GHOSTED_IN,
  DMQBOX_GHOSTED_INOUT,
  DMQBOX_GHOSTED_INOUT_ZERO,
  DMQBOX_GHOSTED_OUT_SUM,
  DMQBOX_GHOSTED_OUT_ADD,
  DMQBOX_GHOSTED_OUT_OWNED,
  DMQBOX_GHOSTED_ADD_OWNED
} DMQBoxGhostedMode;
typedef struct {
  Vec               g, l; /* the global vector; the pool's local vector, or NULL (the vector's own buffer) */
  PetscScalar      *a;    /* the ghosted array, local-box order */
  PetscScalar      *ga;   /* the global vector's array (own buffer) */
  PetscMemType      mt;
  DMQBoxGhostedMode mode;
} DMQBoxGhosted;
/* a vector's array with the access asked (0 read, 1 write, 2 read-write), where it is (host: on the host in any case),
   and how to give it back */
typedef struct {
  Vec          v;
  PetscScalar *a;
  PetscMemType mt;
  int          access;
  PetscBool    host;
} DMQBoxArray;
PETSC_INTERN PetscErrorCode DMQBoxArrayGet_Private(Vec, int, PetscBool, DMQBoxArray *);
PETSC_INTERN PetscErrorCode DMQBoxArrayRestore_Private(DMQBoxArray *);
/* the vector files' shared parts (qboxvec.c, qboxveccuda.c, qboxghosted.c, qboxexchange.c, qboxview.c) */
PETSC_INTERN PetscErrorCode DMQBoxCreateGhostedVector_Private(DM, Vec *);
PETSC_INTERN PetscErrorCode DMQBoxPadAdoptOnWrite_Private(Vec, PetscBool *);
PETSC_INTERN PetscErrorCode DMQBoxVecSetOperationsCUDA_Private(DM, Vec, PetscBool);
PETSC_INTERN PetscErrorCode DMQBoxGetGhostExchange_Private(DM, DMQBoxPacked **);
PETSC_INTERN PetscBool      DMQBoxGatheredOnOne_Private(DM);
PETSC_INTERN PetscErrorCode VecView_QBox_Private(Vec, PetscViewer);
PETSC_INTERN PetscErrorCode VecDuplicate_QBox_Private(Vec, Vec *);
PETSC_INTERN PetscErrorCode DMQBoxGhostedGet_Private(DM, Vec, DMQBoxGhostedMode, PetscBool, DMQBoxGhosted *);
PETSC_INTERN PetscErrorCode DMQBoxGhostedRestore_Private(DM, DMQBoxGhosted *);
PETSC_INTERN PetscErrorCode DMQBoxGhostedUpdate_Private(DM, DMQBoxGhosted *);
PETSC_INTERN PetscErrorCode DMCreateLocalVector_QBox(DM, Vec *);
PETSC_INTERN PetscErrorCode DMGlobalToLocalBegin_QBox(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMGlobalToLocalEnd_QBox(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMLocalToGlobalBegin_QBox(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMLocalToGlobalEnd_QBox(DM, Vec, InsertMode, Vec);
PETSC_INTERN PetscErrorCode DMGetLocalToGlobalMapping_QBox(DM);
PETSC_INTERN PetscErrorCode DMCreateMatrix_QBox(DM, Mat *);
/* the operators of the continuous space, w.mass M + w.stiff K (src/mat/impls/laplacian/, qboxmat.c) */
PETSC_INTERN PetscErrorCode MatCreateQBoxOperator_Private(DM, const VPWeights *, Mat *);
PETSC_INTERN PetscErrorCode DMQBoxAssembleLaplacian_Private(DM, MatType, const VPWeights *, Mat *);
PETSC_INTERN PetscErrorCode DMCreateMassMatrix_QBox(DM, DM, Mat *);
PETSC_INTERN PetscErrorCode DMCreateMassMatrixLumped_QBox(DM, Vec *, Vec *);
PETSC_INTERN PetscErrorCode DMQBoxComputeOperators_Private(KSP, Mat, Mat, void *);
PETSC_INTERN PetscErrorCode MatQBoxLaplacianGetInfo_Private(Mat, DM *, VPWeights *, PetscScalar *, const char **);
PETSC_INTERN PetscErrorCode MatQBoxMultSingle_Private(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatQBoxResidualSingle_Private(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatQBoxPatchResidual_Private(Mat, PetscBool, PetscInt, PetscBool, Vec, Vec, Vec, const VPPatchScaledTables *, const PetscReal *, const PetscScalar *, PetscBool *);
PETSC_INTERN PetscErrorCode MatQBoxPatchResidualArrays_Private(Mat, PetscBool, PetscInt, PetscBool, const PetscScalar *, const PetscScalar *, PetscScalar *, const VPPatchScaledTables *, const PetscReal *, const PetscScalar *, PetscBool *);
PETSC_INTERN PetscErrorCode MatQBoxLaplacianGetAIJ_Private(Mat, const char[], Mat *);
PETSC_INTERN PetscErrorCode DMQBoxSetUpCoordinates_Private(DM);
PETSC_INTERN PetscErrorCode MatQBoxSIPGGetDM_Private(Mat, DM *);
PETSC_INTERN PetscErrorCode DMCoarsen_QBox(DM, MPI_Comm, DM *);
PETSC_INTERN PetscErrorCode DMRefine_QBox(DM, MPI_Comm, DM *);
PETSC_INTERN PetscErrorCode DMCreateInterpolation_QBox(DM, DM, Mat *, Vec *);
PETSC_INTERN PetscErrorCode MatCreateQBoxTransfer_Private(DM, DM, PetscBool, Mat *);
PETSC_INTERN PetscErrorCode MatCreateQBoxSIPG_Private(DM, Mat *);
PETSC_INTERN PetscErrorCode MatAssembleQBoxSIPG_Private(DM, MatType, Mat *);
PETSC_INTERN PetscErrorCode DMQBoxCheckContinuous_Private(DM, const char[]);
PETSC_INTERN PetscErrorCode DMView_QBox(DM, PetscViewer);
PETSC_INTERN PetscErrorCode DMQBoxCheck_Private(DM, const char[]);
PETSC_INTERN PetscErrorCode DMQBoxCheckSetter_Private(DM, const char[]);
PETSC_INTERN PetscErrorCode DMQBoxMaxLevels_Private(DM, PetscInt *);
PETSC_INTERN PetscErrorCode DMQBoxPartition_Private(DM);
PETSC_INTERN PetscErrorCode DMQBoxGetNodeDA_Private(DM, DM *);
PETSC_INTERN PetscInt       DMQBoxColorGroupBits_Private(DM);
PETSC_INTERN PetscErrorCode DMQBoxColorExchangeSetUp_Private(DM, PetscInt);
PETSC_INTERN PetscErrorCode DMQBoxColorExchangeBegin_Private(DM, PetscInt, PetscMemType, PetscScalar *);
PETSC_INTERN PetscErrorCode DMQBoxColorExchangeEnd_Private(DM, PetscInt, PetscMemType, PetscScalar *);
PETSC_INTERN PetscErrorCode DMQBoxColorExchangeDestroy_Private(DM);
PETSC_INTERN PetscErrorCode DMQBoxColumnBox_Private(DM, PetscInt, PetscInt, PetscInt[6]);
/* the node and cell ranges of every process column per direction (DMQBoxColumnBox_Private()): xs, xm (owned nodes),
   gxs, gxm (ghosted box), cs, cm (owned cells); one column for the directions past dim */
typedef struct {
  PetscInt  P[3];
  PetscInt *b[3]; /* 6 entries per column: xs, xm, gxs, gxm, cs, cm */
  PetscInt  me[3];
} DMQBoxColumns;
PETSC_INTERN PetscErrorCode DMQBoxColumnsCreate_Private(DM, DMQBoxColumns *);
PETSC_INTERN PetscErrorCode DMQBoxColumnsDestroy_Private(DMQBoxColumns *);
/* the column of direction d whose owned nodes (e = 0) or owned cells (e = 4) hold p */
PETSC_INTERN PetscInt       DMQBoxColumnOf_Private(const DMQBoxColumns *, PetscInt d, PetscInt e, PetscInt p);
PETSC_INTERN PetscErrorCode DMQBoxDestroyExchange_Private(DM);
PETSC_INTERN PetscErrorCode DMQBoxCreateMove_Private(DM, DM, DMQBoxPacked *);
/* packed exchanges (qboxpacked.c) */
PETSC_INTERN PetscErrorCode DMQBoxPeersAdd_Private(DMQBoxPeers *, PetscMPIInt, PetscInt *);
PETSC_INTERN PetscInt       DMQBoxPeersFind_Private(const DMQBoxPeers *, PetscMPIInt);
PETSC_INTERN PetscErrorCode DMQBoxPeersDestroy_Private(DMQBoxPeers *);
PETSC_INTERN PetscInt       DMQBoxPeersLayout_Private(DMQBoxPeers *);
PETSC_INTERN PetscErrorCode DMQBoxPackedAllocLists_Private(DMQBoxPeers *, DMQBoxPeers *, DMQBoxPacked *);
PETSC_INTERN PetscErrorCode DMQBoxPackedSetUp_Private(DM, const char[], const DMQBoxPeers *, const DMQBoxPeers *, DMQBoxPacked *);
PETSC_INTERN PetscErrorCode DMQBoxPackedDestroy_Private(DMQBoxPacked *);
PETSC_INTERN PetscErrorCode DMQBoxPackedBuffers_Private(PetscScalar *[2][2], PetscInt[2], PetscMemType, PetscInt, PetscScalar **, PetscScalar **);
PETSC_INTERN PetscErrorCode DMQBoxPackedAddRun_Private(DMQBoxPacked *, PetscInt, PetscInt, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode DMQBoxPackedCopy_Private(DMQBoxPacked *, PetscInt, PetscInt, PetscInt, PetscMemType, VPIndexedCopyMode, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMQBoxPackedWaitDevice_Private(PetscMemType);
PETSC_INTERN PetscErrorCode DMQBoxPackedForward_Private(DM, DMQBoxPacked *, PetscMemType, const PetscScalar *, PetscScalar *, InsertMode);
PETSC_INTERN PetscErrorCode DMQBoxPackedReverse_Private(DM, DMQBoxPacked *, PetscMemType, const PetscScalar *, PetscScalar *, InsertMode);
PETSC_INTERN PetscErrorCode DMQBoxCheckVecType_Private(DM);
PETSC_INTERN PetscErrorCode DMQBoxIsCUDA_Private(DM, PetscBool *);
PETSC_INTERN PetscErrorCode DMQBoxExchangeTransport_Private(DM, PetscSF);
PETSC_INTERN PetscErrorCode DMQBoxUseGlobalArrays_Private(DM, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode DMQBoxGetDeviceMatrices_Private(DM, const PetscReal **);
PETSC_INTERN PetscErrorCode DMQBoxGetDeviceDG_Private(DM, const VPDG1D **, const PetscReal **);
PETSC_INTERN PetscErrorCode DMQBoxGetGeometry_Private(DM, const PetscReal **, const PetscReal **);
PETSC_INTERN PetscErrorCode DMQBoxGetGeometryFloat_Private(DM, const float **);
PETSC_INTERN PetscErrorCode DMQBoxGetGeometryRef_Private(DM, VPGeoRef *);
PETSC_INTERN PetscErrorCode DMQBoxGetLayerGeometry_Private(DM, const PetscReal **, const PetscReal **, const float **);
PETSC_INTERN PetscErrorCode DMQBoxGeometryParams_Private(DM, VPGeometryParams *);
PETSC_INTERN PetscErrorCode DMQBoxDestroyGeometry_Private(DM);
PETSC_INTERN PetscErrorCode DMQBoxCopyGeometry_Private(DM, DM);
PETSC_INTERN PetscErrorCode DMQBoxSetFromOptions_Geometry(DM, PetscOptionItems);
PETSC_INTERN PetscErrorCode DMQBoxViewGeometry_Private(DM, PetscViewer);
PETSC_INTERN PetscErrorCode DMQBoxCellGeometry_Private(DM, const PetscInt[3], PetscInt, const PetscReal *, const PetscReal *, PetscReal *, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode DMQBoxCellFactors_Private(DM, const PetscInt[3], PetscReal *, PetscReal *, char[], size_t);
PETSC_INTERN PetscErrorCode DMQBoxCellMassFactors_Private(DM, const PetscInt[3], PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode DMQBoxGetMassGeometry_Private(DM, const PetscReal **, const PetscReal **);
