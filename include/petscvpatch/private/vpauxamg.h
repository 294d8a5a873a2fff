/*
  PCAUXAMG on the GPU: the plain-pointer interface between the host glue (src/pc/impls/auxamg/auxamg.c) and the CUDA
  kernels (src/pc/impls/auxamg/cuda/auxamg.cu). Every pointer named d_* is device memory; the kernels run on PETSc's
  current stream.

  A level matrix on the device is either the CSR of the finest level (the AIJCUSPARSE matrix's own arrays, w = 0) or
  the ELL of a coarse level (w slots per row, stored slot-major: entry s of row i at s n + i). A coarse level's slots
  are the (2r + 1)^d tree cells around the row's cell (r: the coupling radius of the level above), slot s for the
  offset o with s = sum_d (o_d + r) (2r + 1)^d; a slot whose cell holds no unknown has column i and value 0.
*/
#pragma once

#include <petscsys.h>

#define AUXAMG_MAX_SLOTS  125 /* (2r + 1)^d slots at most: r <= 2 in 3D, r <= 5 in 2D */
#define AUXAMG_MAX_LEVELS 32
#define AUXAMG_DENSE_MAX  4096 /* the GPU path inverts a coarsest level of at most this many unknowns (128 MB) */

typedef struct {
  PetscInt           n, w;   /* rows; ELL slots per row (0: CSR) */
  const PetscInt    *rowptr; /* CSR: n + 1 row offsets */
  const PetscInt    *col;    /* CSR: column of each entry; ELL: w n columns, slot-major */
  const PetscScalar *val;    /* values, as col */
} AuxAMGDeviceMat;

/* the aggregation of a level of n rows into nc cells (the next level's rows) */
typedef struct {
  PetscInt    n, nc;
  PetscInt   *d_agg;   /* [n]: each row's cell */
  PetscInt   *d_perm;  /* [n]: the rows by cell, in increasing order within a cell */
  PetscInt   *d_start; /* [nc + 1]: cell I's rows are d_perm[d_start[I] .. d_start[I + 1]) */
  PetscInt   *d_cells; /* [nc]: the cells by color (the Gauss-Seidel's order) */
  PetscInt64 *d_ckey;  /* [n]: the tree key of each row's cell */
} AuxAMGDeviceAgg;

PETSC_INTERN PetscErrorCode AuxAMGUpload_CUDA(void **d, const void *h, size_t bytes);
PETSC_INTERN PetscErrorCode AuxAMGParent_CUDA(PetscInt n, PetscInt cdim, PetscInt M, PetscInt64 *d_key);
PETSC_INTERN PetscErrorCode AuxAMGAggregate_CUDA(PetscInt n, const PetscInt64 *d_key, PetscInt **d_agg, PetscInt *nc, PetscInt64 **d_ukeys);
PETSC_INTERN PetscErrorCode AuxAMGMembers_CUDA(AuxAMGDeviceAgg *g, const PetscInt64 *d_ukeys);
PETSC_INTERN PetscErrorCode AuxAMGRadius_CUDA(const AuxAMGDeviceMat *A, const AuxAMGDeviceAgg *g, PetscInt cdim, PetscInt M, PetscInt *r);
PETSC_INTERN PetscErrorCode AuxAMGColors_CUDA(AuxAMGDeviceAgg *g, const PetscInt64 *d_ukeys, PetscInt cdim, PetscInt M, PetscInt r, PetscInt colorstart[]);
PETSC_INTERN PetscErrorCode AuxAMGGalerkin_CUDA(const AuxAMGDeviceMat *A, const AuxAMGDeviceAgg *g, const PetscInt64 *d_ukeys, PetscInt cdim, PetscInt M, PetscInt r, PetscInt **d_col, PetscScalar **d_val, PetscInt *w, PetscInt64 *nnz);
PETSC_INTERN PetscErrorCode AuxAMGInvDiag_CUDA(const AuxAMGDeviceMat *A, PetscScalar **d_idiag, PetscInt *zerorow, PetscInt *maxlen);
PETSC_INTERN PetscErrorCode AuxAMGSmoothColor_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *d_idiag, const AuxAMGDeviceAgg *g, PetscInt maxlen, PetscInt c0, PetscInt c1, PetscBool forward, const PetscScalar *b, PetscScalar *x);
PETSC_INTERN PetscErrorCode AuxAMGOffRank_CUDA(const AuxAMGDeviceMat *Ao, const PetscInt *d_order, PetscInt q0, PetscInt q1, const PetscScalar *b, const PetscScalar *g, PetscScalar *bt);
PETSC_INTERN PetscErrorCode AuxAMGSequence_CUDA(PetscInt n, PetscInt **d_seq);
PETSC_INTERN PetscErrorCode AuxAMGJacobiWeights_CUDA(const AuxAMGDeviceMat *A, PetscScalar **d_w);
PETSC_INTERN PetscErrorCode AuxAMGJacobi_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *d_w, const PetscScalar *b, const PetscScalar *x, PetscScalar *y);
PETSC_INTERN PetscErrorCode AuxAMGMult_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *b, const PetscScalar *x, PetscScalar *y);
PETSC_INTERN PetscErrorCode AuxAMGRestrict_CUDA(const AuxAMGDeviceAgg *g, const PetscScalar *r, PetscScalar *rc);
PETSC_INTERN PetscErrorCode AuxAMGProlongAdd_CUDA(const AuxAMGDeviceAgg *g, const PetscScalar *e, PetscScalar *x);
PETSC_INTERN PetscErrorCode AuxAMGFree_CUDA(void *d);
PETSC_INTERN PetscErrorCode AuxAMGCopyToHost_CUDA(void *h, const void *d, size_t bytes);

/*
  The cycle on the coarse levels (1 .. L - 1) on the device: what one visit of level 1 does (the K- or V-cycle below
  it, the coarsest level by its dense inverse), as a fixed sequence of kernels on one stream with no host
  synchronization, so that it can be captured once into a CUDA graph and launched as one. The K-cycle's inner products
  are reduced on the device and its coefficients computed there; the second inner step that the first made unnecessary
  is skipped by a flag in device memory that each of its kernels reads (so the sequence does not depend on the data).
  The level 0 part of a V- or K-cycle stays with the host glue.
*/
typedef struct {
  PetscInt           nlevels; /* L: the levels 0 .. L - 1; the cycle runs on 1 .. L - 1 */
  PetscBool          kcycle;
  PetscReal          ktol;
  AuxAMGDeviceMat    A[AUXAMG_MAX_LEVELS];
  AuxAMGDeviceAgg    agg[AUXAMG_MAX_LEVELS]; /* level l into level l + 1 */
  const PetscScalar *idiag[AUXAMG_MAX_LEVELS];
  const PetscScalar *jac[AUXAMG_MAX_LEVELS]; /* the damped Jacobi's weights of a level, or NULL: its colored Gauss-Seidel */
  PetscInt           maxlen[AUXAMG_MAX_LEVELS], ncolors[AUXAMG_MAX_LEVELS];
  const PetscInt    *colorstart[AUXAMG_MAX_LEVELS]; /* host arrays of ncolors + 1, kept by the caller while the cycle lives */
  /* device work vectors of each level l >= 1 (n = A[l].n), kept by the caller: b and x, the right-hand side and the
     correction of a visit; r, the residual after pre-smoothing; c1, v1, r1, c2, v2, the K-cycle's inner steps */
  PetscScalar *b[AUXAMG_MAX_LEVELS], *x[AUXAMG_MAX_LEVELS], *r[AUXAMG_MAX_LEVELS];
  PetscScalar *c1[AUXAMG_MAX_LEVELS], *v1[AUXAMG_MAX_LEVELS], *r1[AUXAMG_MAX_LEVELS], *c2[AUXAMG_MAX_LEVELS], *v2[AUXAMG_MAX_LEVELS];
} AuxAMGCycleDesc;

typedef struct _n_AuxAMGCycle *AuxAMGCycle;

PETSC_INTERN PetscErrorCode AuxAMGCycleCreate_CUDA(const AuxAMGCycleDesc *desc, AuxAMGCycle *cycle);
PETSC_INTERN PetscErrorCode AuxAMGCycleRun_CUDA(AuxAMGCycle cycle, PetscBool graph, PetscLogDouble *flops);
PETSC_INTERN PetscErrorCode AuxAMGCycleDestroy_CUDA(AuxAMGCycle *cycle);
