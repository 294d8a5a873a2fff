/*
  petsc-vpatch: high-order geometric multigrid with vertex-patch smoothers for PETSc.

  Public interface: package registration, the tensor-product DM DMQBOX (Q_k on a box,
  matrix-free Laplacian and transfer), and its finite-element helpers.
*/
#pragma once

#include <petscdm.h>
#include <petscksp.h>

/* Package registration */
PETSC_EXTERN PetscErrorCode PetscVPatchInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscVPatchFinalizePackage(void);

/*J
  DMQBOX - "qbox": continuous Q_k finite elements on a Cartesian tensor-product mesh of a box

  Level: beginner

.seealso: `DMQBoxCreate()`, `DMType`
J*/
#define DMQBOX "qbox"

/*J
  PCVPATCH - "vpatch": the colored multiplicative vertex-patch smoother with exact local solves

  Level: beginner

.seealso: `PCVPatchSetSweep()`, `PCType`
J*/
#define PCVPATCH "vpatch"

/*MC
  PCAUXAMG - "auxamg": auxiliary-grid aggregation AMG for assembled matrices with point coordinates

  Level: intermediate

.seealso: `PCGAMG`, `PCSetCoordinates()`
M*/
#define PCAUXAMG "auxamg"

/*E
  PCAuxAMGCycle - the cycle of `PCAUXAMG`: `PC_AUXAMG_CYCLE_V` (linear) or `PC_AUXAMG_CYCLE_K` (the K-cycle, nonlinear)

  Level: intermediate

.seealso: `PCAUXAMG`
E*/
typedef enum {
  PC_AUXAMG_CYCLE_V,
  PC_AUXAMG_CYCLE_K
} PCAuxAMGCycle;
PETSC_EXTERN const char *const PCAuxAMGCycles[];
PETSC_EXTERN PetscErrorCode    PCAuxAMGGetAggregates(PC, PetscInt, IS *);

/*E
  PCVPatchSweep - order of the colors in one smoothing step of `PCVPATCH`

  Values:
+ PC_VPATCH_SWEEP_FORWARD   - colors 0, 1, ..., 2^d-1
. PC_VPATCH_SWEEP_BACKWARD  - colors in reverse order (the adjoint of forward)
- PC_VPATCH_SWEEP_SYMMETRIC - forward, then backward

  Level: intermediate

.seealso: `PCVPATCH`, `PCVPatchSetSweep()`
E*/
typedef enum {
  PC_VPATCH_SWEEP_FORWARD,
  PC_VPATCH_SWEEP_BACKWARD,
  PC_VPATCH_SWEEP_SYMMETRIC
} PCVPatchSweep;
PETSC_EXTERN const char *const PCVPatchSweeps[];

/*E
  PCVPatchCorrection - how `PCApplyRichardson()` of `PCVPATCH` sweeps from a nonzero iterate x (a `PCMG` post-smoother)

  Values:
+ PC_VPATCH_CORRECTION_NONE  - in place: each patch's local residual b - A x is computed in the sweep's arithmetic (default)
. PC_VPATCH_CORRECTION_MIXED - as ALL where the sweep computes in single precision and the operator's `DMQBOX` in double
                               (the finest level of a mixed-precision hierarchy), elsewhere as NONE
- PC_VPATCH_CORRECTION_ALL   - r = b - A x by the operator (`MatResidual()`, in its own precision), the sweeps on A d = r
                               from d = 0, then x = x + d: one residual and two vector passes more, the same iterates in exact
                               arithmetic. A single-precision sweep then rounds relative to the correction d, not to x

  Level: advanced

.seealso: `PCVPATCH`, `PCVPatchSetCorrection()`, `PCVPatchSetPrecision()`
E*/
typedef enum {
  PC_VPATCH_CORRECTION_NONE,
  PC_VPATCH_CORRECTION_MIXED,
  PC_VPATCH_CORRECTION_ALL
} PCVPatchCorrection;
PETSC_EXTERN const char *const PCVPatchCorrections[];

/*E
  PCVPatchType - how the patch corrections are combined: multiplicative (colored) or additive (damped)

  Level: intermediate

.seealso: `PCVPATCH`, `PCVPatchSetType()`
E*/
typedef enum {
  PC_VPATCH_MULTIPLICATIVE,
  PC_VPATCH_ADDITIVE
} PCVPatchType;
PETSC_EXTERN const char *const PCVPatchTypes[];

/*E
  PCVPatchRanks - how the multiplicative sweep of `PCVPATCH` couples several MPI ranks

  Values:
+ PC_VPATCH_RANKS_EXACT   - the iterates of one rank: after each color, one exchange brings the values that other ranks'
                            patches changed (default)
- PC_VPATCH_RANKS_RELAXED - each rank sweeps all colors of its own patches with the other ranks' values from the start of
                            the sweep and keeps its own nodes' values: two exchanges per sweep (b and x in) instead of one
                            per color. Iteration counts may grow, and the preconditioner is not symmetric even with the
                            symmetric sweep: use `KSPGMRES` or `KSPFGMRES` outside. One rank: the same as exact.

  Level: advanced

.seealso: `PCVPATCH`, `PCVPatchSetRanks()`
E*/
typedef enum {
  PC_VPATCH_RANKS_EXACT,
  PC_VPATCH_RANKS_RELAXED
} PCVPatchRanks;
PETSC_EXTERN const char *const PCVPatchRanksTypes[];

/*E
  PCVPatchLocalSolver - the local solver of `PCVPATCH`

  Values:
+ PC_VPATCH_LOCAL_FDM   - fast diagonalization: exact on a Cartesian `DMQBOX`; on a mapped one (or one with a coefficient) of a
                          separable surrogate of each patch (`PCVPatchSurrogate`)
. PC_VPATCH_LOCAL_DENSE - a stored dense LU of each patch matrix (verification, CPU)
- PC_VPATCH_LOCAL_CG    - on a mapped `DMQBOX`: a few conjugate-gradient steps on each patch's true operator (matrix-free), preconditioned
                          by the surrogate scaled by the operator's diagonal (-pc_vpatch_local_its); robust where the coefficient varies
                          strongly inside a patch. Nonlinear: use a flexible outer Krylov method (`KSPFGMRES`, `KSPFCG`). On a Cartesian
                          `DMQBOX` it is the exact fast diagonalization.
- PC_VPATCH_LOCAL_SCALED - on a mapped `DMQBOX`: that preconditioner alone, damped (in 3D without a mass term each patch by its own
                          min(1, 1.7 / lambda_max) from -pc_vpatch_local_damping_steps Lanczos steps at set-up, else
                          -pc_vpatch_local_damping, default min(0.7, 2.1/k)): the
                          surrogate's fast diagonalization between two scalings by the operator's diagonal, so that the local
                          solve sees the coefficient node by node. Linear (any Krylov method), the cost of the surrogate plus a
                          read of the diagonal; converges where the unscaled surrogate does not (contrast 1e6).

  Level: intermediate

.seealso: `PCVPATCH`, `PCVPatchSetLocalSolver()`
E*/
typedef enum {
  PC_VPATCH_LOCAL_FDM,
  PC_VPATCH_LOCAL_DENSE,
  PC_VPATCH_LOCAL_CG,
  PC_VPATCH_LOCAL_SCALED
} PCVPatchLocalSolver;
PETSC_EXTERN const char *const PCVPatchLocalSolvers[];

/*E
  PCVPatchSurrogate - how `PCVPATCH` scales the separable surrogate of a patch of a mapped `DMQBOX` (or one with a coefficient)

  Values:
+ PC_VPATCH_SURROGATE_POINTMAX - per direction d, the largest a det(J) (J^-1 J^-T)_dd over the quadrature points of the patch's cells:
                                  the sweep converges where the coefficient varies inside a cell (default)
. PC_VPATCH_SURROGATE_CELLMAX  - the largest integral of that entry over one of the patch's cells
. PC_VPATCH_SURROGATE_MEAN     - the mean of those integrals over the patch's cells (the exact patch solve on a Cartesian mesh with a
                                  constant coefficient; may diverge where the coefficient varies strongly inside a patch)
- PC_VPATCH_SURROGATE_PROFILE  - 3D, stiffness only: the 1D patch matrices of each direction weighted by a profile of the factors
                                  fitted over the patch's quadrature points (a product of 1D functions exactly), each patch its own
                                  fast diagonalization (with CUDA vectors in the patch kernel only)

  Level: advanced

.seealso: `PCVPATCH`, `DMQBoxSetCoefficient()`, `DMQBoxSetMapping()`
E*/
typedef enum {
  PC_VPATCH_SURROGATE_POINTMAX,
  PC_VPATCH_SURROGATE_CELLMAX,
  PC_VPATCH_SURROGATE_MEAN,
  PC_VPATCH_SURROGATE_PROFILE
} PCVPatchSurrogate;
PETSC_EXTERN const char *const PCVPatchSurrogates[];

/*E
  PCVPatchKernel - the GPU kernel variant of `PCVPATCH` (the three designs of the main reference)

  Values:
+ PC_VPATCH_KERNEL_GLOBAL   - per color, the residual by a global `MatMult()`, then a local-solve kernel
. PC_VPATCH_KERNEL_SEPARATE - per color, a localized-residual kernel, then a local-solve kernel
- PC_VPATCH_KERNEL_FUSED    - per color, one kernel: localized residual and local solve in shared memory (default)

  Level: advanced

.seealso: `PCVPATCH`, `PCVPatchSetKernel()`
E*/
typedef enum {
  PC_VPATCH_KERNEL_GLOBAL,
  PC_VPATCH_KERNEL_SEPARATE,
  PC_VPATCH_KERNEL_FUSED
} PCVPatchKernel;
PETSC_EXTERN const char *const PCVPatchKernels[];

/*E
  VPPrecision - arithmetic precision of the petsc-vpatch GPU kernels (vectors stay `PetscScalar`)

  Values:
+ VP_PRECISION_DOUBLE - double precision (default)
- VP_PRECISION_SINGLE - single precision: float arithmetic in shared memory, values converted on load and store

  Level: intermediate

  Note:
  Mixed precision multigrid (a single-precision V-cycle inside a double Krylov method):
  `-mg_levels_pc_vpatch_precision single -dm_qbox_mg_precision single` (smoothers, and the operators and
  transfers of the coarser levels). The CPU path is double only.

.seealso: `PCVPatchSetPrecision()`, `DMQBoxSetPrecision()`
E*/
typedef enum {
  VP_PRECISION_DOUBLE,
  VP_PRECISION_SINGLE
} VPPrecision;
PETSC_EXTERN const char *const VPPrecisions[];

PETSC_EXTERN PetscErrorCode PCVPatchSetSweep(PC, PCVPatchSweep);
PETSC_EXTERN PetscErrorCode PCVPatchSetColorOrder(PC, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode PCVPatchSetCorrection(PC, PCVPatchCorrection);
PETSC_EXTERN PetscErrorCode PCVPatchSetRanks(PC, PCVPatchRanks);
PETSC_EXTERN PetscErrorCode PCVPatchSetPrecision(PC, VPPrecision);
PETSC_EXTERN PetscErrorCode PCVPatchSetKernel(PC, PCVPatchKernel);
PETSC_EXTERN PetscErrorCode PCVPatchSetType(PC, PCVPatchType);
PETSC_EXTERN PetscErrorCode PCVPatchSetDamping(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCVPatchSetLocalSolver(PC, PCVPatchLocalSolver);

/*S
  DMQBoxFunction - A pointwise function for `DMQBOX` helpers

  Calling Sequence:
+ dim  - spatial dimension
. x    - the point (dim coordinates)
. u    - output: the value at x
. du   - output: the gradient at x (dim entries); `NULL` when the caller needs no gradient
- ctx  - user context

  Level: beginner

.seealso: `DMQBoxComputeRHS()`, `DMQBoxComputeError()`, `DMQBoxProjectFunction()`
S*/
typedef PetscErrorCode (*DMQBoxFunction)(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx);

/*S
  DMQBoxMapping - A smooth map from the box of a `DMQBOX` to the physical domain

  Calling Sequence:
+ dim - spatial dimension
. X   - a point of the box (dim coordinates)
. x   - output: its image (dim coordinates)
- ctx - user context

  Level: intermediate

  Note:
  The geometry is isoparametric: on each cell the map is interpolated by Q_k at the cell's nodes.

.seealso: `DMQBoxSetMapping()`, `DMQBoxMappingType`
S*/
typedef PetscErrorCode (*DMQBoxMapping)(PetscInt dim, const PetscReal X[], PetscReal x[], void *ctx);

/*S
  DMQBoxCoefficient - The coefficient a(x) > 0 of the operator -div(a grad u) of a `DMQBOX`

  Calling Sequence:
+ dim - spatial dimension
. x   - a point of the physical domain (dim coordinates)
. a   - output: the coefficient there (positive and finite)
- ctx - user context

  Level: intermediate

.seealso: `DMQBoxSetCoefficient()`, `DMQBoxCoefficientType`
S*/
typedef PetscErrorCode (*DMQBoxCoefficient)(PetscInt dim, const PetscReal x[], PetscReal *a, void *ctx);

/*E
  DMQBoxMappingType - the geometry of a `DMQBOX`

  Values:
+ DMQBOX_MAPPING_NONE     - the box itself (Cartesian cells: the fast path)
. DMQBOX_MAPPING_SHELL    - a panel of the spherical shell r0 < |x| < r1 (3D: one of the six cubed-sphere panels; 2D: the quarter
                            annulus around the y axis); the box is mapped from its unit-cube coordinates
. DMQBOX_MAPPING_DEFORMED - the box moved by x_e + A (b_e - a_e) sin(pi s_1) ... sin(pi s_d), s the unit-cube coordinates
- DMQBOX_MAPPING_USER     - a `DMQBoxMapping` given by `DMQBoxSetMapping()`

  Level: intermediate

.seealso: `DMQBoxSetMappingType()`, `DMQBoxSetMapping()`
E*/
typedef enum {
  DMQBOX_MAPPING_NONE,
  DMQBOX_MAPPING_SHELL,
  DMQBOX_MAPPING_DEFORMED,
  DMQBOX_MAPPING_USER
} DMQBoxMappingType;
PETSC_EXTERN const char *const DMQBoxMappingTypes[];

/*E
  DMQBoxCoefficientType - the coefficient a(x) of the operator -div(a grad u) of a `DMQBOX`

  Values:
+ DMQBOX_COEFFICIENT_ONE         - a = 1 (the Laplacian)
. DMQBOX_COEFFICIENT_OSCILLATORY - a = 1 + c prod_e cos^2(2 pi x_e + 0.1 e), e = 0..d-1, contrast c (default 1e6): the positive
                                   variant of the coefficient of Kronbichler et al. (theirs, without the square, changes sign)
- DMQBOX_COEFFICIENT_USER        - a `DMQBoxCoefficient` given by `DMQBoxSetCoefficient()`

  Level: intermediate

.seealso: `DMQBoxSetCoefficientType()`, `DMQBoxSetCoefficient()`
E*/
typedef enum {
  DMQBOX_COEFFICIENT_ONE,
  DMQBOX_COEFFICIENT_OSCILLATORY,
  DMQBOX_COEFFICIENT_USER
} DMQBoxCoefficientType;
PETSC_EXTERN const char *const DMQBoxCoefficientTypes[];

PETSC_EXTERN PetscErrorCode DMQBoxCreate(MPI_Comm, PetscInt, const PetscInt[], PetscInt, const PetscReal[], const PetscReal[], DM *);
PETSC_EXTERN PetscErrorCode DMQBoxSetDimension(DM, PetscInt);
PETSC_EXTERN PetscErrorCode DMQBoxSetCells(DM, const PetscInt[]);
PETSC_EXTERN PetscErrorCode DMQBoxSetDegree(DM, PetscInt);
PETSC_EXTERN PetscErrorCode DMQBoxSetBox(DM, const PetscReal[], const PetscReal[]);
PETSC_EXTERN PetscErrorCode DMQBoxSetPrecision(DM, VPPrecision, VPPrecision);
PETSC_EXTERN PetscErrorCode DMQBoxSetOperatorWeights(DM, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode DMQBoxGetOperatorWeights(DM, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMQBoxGetInfo(DM, PetscInt *, PetscInt[], PetscInt *, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode DMQBoxGetOwnedCells(DM, PetscInt[], PetscInt[]);
PETSC_EXTERN PetscErrorCode DMQBoxGetMaxLevels(DM, PetscInt *);
PETSC_EXTERN PetscErrorCode DMQBoxGetNodeCoordinates1D(DM, PetscInt, const PetscReal **, PetscInt *);

PETSC_EXTERN PetscErrorCode DMQBoxSetMapping(DM, DMQBoxMapping, void *);
PETSC_EXTERN PetscErrorCode DMQBoxSetMappingType(DM, DMQBoxMappingType);
PETSC_EXTERN PetscErrorCode DMQBoxGetMappingType(DM, DMQBoxMappingType *);
PETSC_EXTERN PetscErrorCode DMQBoxSetCoefficient(DM, DMQBoxCoefficient, void *);
PETSC_EXTERN PetscErrorCode DMQBoxSetCoefficientType(DM, DMQBoxCoefficientType);
PETSC_EXTERN PetscErrorCode DMQBoxGetCoefficientType(DM, DMQBoxCoefficientType *);
PETSC_EXTERN PetscErrorCode DMQBoxMapPoint(DM, const PetscReal[], PetscReal[]);

PETSC_EXTERN PetscErrorCode DMQBoxProjectFunction(DM, DMQBoxFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMQBoxComputeRHS(DM, DMQBoxFunction, DMQBoxFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode DMQBoxSetDiscontinuous(DM, PetscBool, PetscReal);
PETSC_EXTERN PetscErrorCode DMQBoxGetDiscontinuous(DM, PetscBool *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMQBoxComputeError(DM, Vec, DMQBoxFunction, void *, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode DMQBoxInterpolate(DM, Vec, DM, Vec);
PETSC_EXTERN PetscErrorCode DMQBoxVecViewVTK(DM, Vec, const char[]);
