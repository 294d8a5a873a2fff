/*
  DMQBOX: continuous Q_k finite elements on a Cartesian tensor-product mesh of a box.

  Nodes are numbered lexicographically over the whole box, boundary nodes included (Dirichlet rows
  act as identity). Each rank owns a box of cells; the node layout and the ghost exchange are those
  of an inner DMDA (node grid k*n_i+1 per direction, ownership boundaries on multiples of k, box
  stencil of width k), so vectors of any PETSc type, CUDA included, are exchanged by PETSc. The DMDA
  is made on first use (DMQBoxGetNodeDA_Private()): its set-up builds index sets and star forests
  over all nodes on the host (with the coordinates' DMDA: 77 s for 455M nodes on one rank, measured),
  and one rank needs none of it, since its local box is its owned box (qboxexchange.c copies instead).

  This file: creation, options, set-up (partition), view, accessors. Vectors: qboxvec.c (and qboxveccuda.c, qboxghosted.c, qboxexchange.c, qboxview.c);
  finite-element helpers: qboxfe.c; hierarchy: qboxhier.c; DMCreateMatrix() and DMCreateInterpolation():
  qboxmat.c (the matrix-free operators themselves: src/mat/impls/).
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscdmda.h>

/* a DMQBOX setter: the DM must be a DMQBOX, checked in every build (PetscValidHeaderSpecificType() checks only with debugging);
   also the setters of qboxgeo.c */
PetscErrorCode DMQBoxCheckSetter_Private(DM dm, const char caller[])
{
  PetscBool isqbox;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMQBOX, &isqbox));
  PetscCheck(isqbox, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "%s() needs a DM of type %s, not %s", caller, DMQBOX, ((PetscObject)dm)->type_name ? ((PetscObject)dm)->type_name : "(unset)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMQBoxCheckNotSetUp(DM dm)
{
  PetscFunctionBegin;
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "This DMQBOX parameter cannot be changed after DMSetUp()");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxCheck_Private(DM dm, const char caller[])
{
  PetscBool isqbox;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMQBOX, &isqbox));
  PetscCheck(isqbox, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "%s() needs a DM of type %s, not %s", caller, DMQBOX, ((PetscObject)dm)->type_name ? ((PetscObject)dm)->type_name : "(unset)");
  PetscCheck(dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "%s(): call DMSetUp() on the DMQBOX first", caller);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxCreate - Creates a `DMQBOX`: continuous Q_k elements on a Cartesian mesh of a box

  Collective

  Input Parameters:
+ comm   - MPI communicator
. dim    - spatial dimension, 2 or 3
. cells  - number of cells per direction (dim entries), or `NULL` for 1 cell per direction
. degree - polynomial degree k: 1..10 in 2D, 1..8 in 3D
. lower  - lower corner of the box (dim entries), or `NULL` for the origin
- upper  - upper corner of the box (dim entries), or `NULL` for (1,...,1)

  Output Parameter:
. dm - the new `DM`; call `DMSetFromOptions()` (optional) and `DMSetUp()` before use

  Options Database Keys:
+ -dm_qbox_dim <d>            - spatial dimension
. -dm_qbox_cells <n1,n2[,n3]> - cells per direction
. -dm_qbox_degree <k>         - polynomial degree
. -dm_qbox_lower <a1,a2[,a3]> - lower corner
. -dm_qbox_upper <b1,b2[,b3]> - upper corner
. -dm_qbox_coordinates <bool> - store the node coordinates in the `DM` (`DMGetCoordinates()`; default false: they cost dim reals per node on the host and the set-up of a node `DMDA`, which take minutes at 1e9 nodes; `DMQBoxGetNodeCoordinates1D()` gives them per direction at no cost)
. -dm_qbox_deterministic <bool> - CUDA operator: scatter-add by 2^d colors of cells instead of atomics, bitwise reproducible
. -dm_vec_type <standard,cuda> - vector type
- -dm_mat_type <shell,aij,aijcusparse> - `DMCreateMatrix()` gives the matrix-free operator (shell, default) or the same operator assembled

  Level: beginner

  Note:
  Nodes are numbered lexicographically over the whole box, boundary nodes included; Dirichlet rows
  of the operators are the identity, so the discrete problem has (k n_1 - 1) ... (k n_d - 1) unknowns.

.seealso: `DMQBOX`, `DMCreateMatrix()`, `DMCoarsen()`, `DMCreateInterpolation()`, `DMQBoxComputeRHS()`
@*/
PetscErrorCode DMQBoxCreate(MPI_Comm comm, PetscInt dim, const PetscInt cells[], PetscInt degree, const PetscReal lower[], const PetscReal upper[], DM *dm)
{
  PetscFunctionBegin;
  PetscAssertPointer(dm, 7);
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(DMCreate(comm, dm));
  PetscCall(DMSetType(*dm, DMQBOX));
  PetscCall(DMQBoxSetDimension(*dm, dim));
  if (cells) PetscCall(DMQBoxSetCells(*dm, cells));
  PetscCall(DMQBoxSetDegree(*dm, degree));
  if (lower || upper) {
    PetscReal lo[3] = {0, 0, 0}, up[3] = {1, 1, 1};
    for (PetscInt d = 0; d < dim && d < 3; d++) {
      if (lower) lo[d] = lower[d];
      if (upper) up[d] = upper[d];
    }
    PetscCall(DMQBoxSetBox(*dm, lo, up));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetDimension - Sets the spatial dimension (2 or 3) of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm  - the `DMQBOX`
- dim - 2 or 3

  Level: beginner

  Note:
  A direction the new dimension adds (2D to 3D) takes the cell count of the first direction (a 2D box of 16 x 16 cells
  becomes 16 x 16 x 16), on [0, 1]; `DMQBoxSetCells()` and `DMQBoxSetBox()` (-dm_qbox_cells, -dm_qbox_lower,
  -dm_qbox_upper) set others.

.seealso: `DMQBOX`, `DMQBoxCreate()`
@*/
PetscErrorCode DMQBoxSetDimension(DM dm, PetscInt dim)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetDimension"));
  PetscCall(DMQBoxCheckNotSetUp(dm));
  PetscCheck(dim == 2 || dim == 3, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "DMQBOX supports dimension 2 or 3, not %" PetscInt_FMT, dim);
  for (PetscInt d = q->dim; d < dim; d++) q->cells[d] = q->cells[0]; /* a level of one cell in the new direction would leave no interior vertex */
  q->dim = dim;
  PetscCall(DMSetDimension(dm, dim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetCells - Sets the number of cells per direction of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm    - the `DMQBOX`
- cells - cells per direction (dim entries, each >= 1)

  Level: beginner

.seealso: `DMQBOX`, `DMQBoxCreate()`
@*/
PetscErrorCode DMQBoxSetCells(DM dm, const PetscInt cells[])
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetCells"));
  PetscCall(DMQBoxCheckNotSetUp(dm));
  for (PetscInt d = 0; d < q->dim; d++) {
    PetscCheck(cells[d] >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "DMQBOX needs at least one cell per direction, got %" PetscInt_FMT " in direction %" PetscInt_FMT, cells[d], d);
    q->cells[d] = cells[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetDegree - Sets the polynomial degree k of the Q_k space of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm     - the `DMQBOX`
- degree - 1..10 in 2D, 1..8 in 3D (checked at `DMSetUp()`)

  Level: beginner

.seealso: `DMQBOX`, `DMQBoxCreate()`
@*/
PetscErrorCode DMQBoxSetDegree(DM dm, PetscInt degree)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetDegree"));
  PetscCall(DMQBoxCheckNotSetUp(dm));
  q->degree = degree;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetPrecision - Sets the arithmetic precision of the CUDA kernels of the operator and transfers of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm          - the `DMQBOX`
. precision   - `VP_PRECISION_DOUBLE` or `VP_PRECISION_SINGLE`: this level's Laplacian and the transfers to its refinement
- mgprecision - the same for the levels that `DMCoarsen()` creates from this one (and from those)

  Options Database Keys:
+ -dm_qbox_precision <double,single>    - this level
- -dm_qbox_mg_precision <double,single> - the coarser levels

  Level: intermediate

  Notes:
  Vectors stay `PetscScalar`; single precision converts values on load into shared memory and back on the store.
  With `-dm_qbox_mg_precision single` and `-mg_levels_pc_vpatch_precision single`, `PCMG` runs its cycle in single
  precision except the residual of the finest level, which uses the finest (double) operator. Only the CUDA path
  has single precision; the CPU kernels are double and refuse single precision with an error.

.seealso: `DMQBOX`, `VPPrecision`, `PCVPatchSetPrecision()`
@*/
PetscErrorCode DMQBoxSetPrecision(DM dm, VPPrecision precision, VPPrecision mgprecision)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetPrecision"));
  PetscValidLogicalCollectiveEnum(dm, precision, 2);
  PetscValidLogicalCollectiveEnum(dm, mgprecision, 3);
  q->precision   = precision;
  q->mgprecision = mgprecision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetOperatorWeights - Sets the operator that `DMCreateMatrix()` gives: mass M + stiffness K, M the Q_k mass matrix
  and K the stiffness matrix (of -div(a grad u) on a mapped box)

  Logically Collective

  Input Parameters:
+ dm        - the `DMQBOX`
. mass      - the weight of M, >= 0 (1/dt for a backward Euler step)
- stiffness - the weight of K, >= 0 (default 1: the Laplacian)

  Options Database Keys:
+ -dm_qbox_operator_mass <mass>           - the weight of M
- -dm_qbox_operator_stiffness <stiffness> - the weight of K

  Level: intermediate

  Notes:
  `DMCoarsen()` and `DMRefine()` keep the weights, so `PCMG` builds the hierarchy of the same operator (the coarse
  operators are rediscretized, no Galerkin product). The Dirichlet rows are (mass + stiffness) times the identity, so
  that the operators of a `DMQBOX` combine linearly: the operator J = s M + K that a time stepper forms with `MatCopy()`
  and `MatAXPY()` of `DMCreateMatrix()`'s and `DMCreateMassMatrix()`'s matrices equals the one this function sets with
  (s, 1), and `PCVPATCH` solves either exactly. With `KSPSetOperators()` and `PCMG` on the `DM`'s hierarchy, set the same
  weights here so that the coarse levels carry them (a compute-operators callback, as `TS` uses, forms each level's
  operator itself). On a mapped box the mass matrix is that of the mapped cells; the discontinuous space has no mass term.

.seealso: `DMQBOX`, `DMCreateMatrix()`, `DMCreateMassMatrix()`, `PCVPATCH`
@*/
PetscErrorCode DMQBoxSetOperatorWeights(DM dm, PetscReal mass, PetscReal stiffness)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetOperatorWeights")); /* before or after DMSetUp() */
  PetscValidLogicalCollectiveReal(dm, mass, 2);
  PetscValidLogicalCollectiveReal(dm, stiffness, 3);
  PetscCheck(mass >= 0 && stiffness >= 0 && mass + stiffness > 0 && !PetscIsInfOrNanReal(mass + stiffness), PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
             "DMQBoxSetOperatorWeights(): the weights of mass and stiffness must be finite, >= 0 and not both 0, got %g and %g (-dm_qbox_operator_mass, -dm_qbox_operator_stiffness)", (double)mass, (double)stiffness);
  q->opweights.mass  = mass;
  q->opweights.stiff = stiffness;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetOperatorWeights - Gets the weights of mass and stiffness of the operator that `DMCreateMatrix()` gives

  Not Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameters:
+ mass      - the weight of the mass matrix
- stiffness - the weight of the stiffness matrix

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxSetOperatorWeights()`
@*/
PetscErrorCode DMQBoxGetOperatorWeights(DM dm, PetscReal *mass, PetscReal *stiffness)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxGetOperatorWeights"));
  if (mass) *mass = q->opweights.mass;
  if (stiffness) *stiffness = q->opweights.stiff;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetDiscontinuous - Makes a `DMQBOX` carry the discontinuous Q_k space of the symmetric interior penalty (SIPG)
  discretization instead of the continuous one

  Logically Collective

  Input Parameters:
+ dm      - the `DMQBOX`, before `DMSetUp()`
. dg      - `PETSC_TRUE`: (k+1)^d Gauss-Lobatto nodes per cell, no node shared between cells
- penalty - the penalty factor C of sigma = C k (k+1) / h (`PETSC_DETERMINE`: 2)

  Options Database Keys:
+ -dm_qbox_dg <bool>        - the discontinuous space
- -dm_qbox_dg_penalty <C>   - the penalty factor

  Level: intermediate

  Notes:
  `DMCreateMatrix()` gives the SIPG form of -Laplace u (Nitsche terms for u = 0 on the boundary) as a matrix-free
  `MATSHELL`, `DMCreateInterpolation()` the embedding into the refinement, so `PCMG` builds the hierarchy by itself;
  `DMQBoxComputeRHS()` (without a boundary function), `DMQBoxComputeError()` and `DMQBoxProjectFunction()` work on it.
  CPU or CUDA vectors (the CUDA kernels in float with `DMQBoxSetPrecision()`), any number of MPI ranks (a ghost layer of
  one cell). So far the Cartesian box without a coefficient; the other operations of `DMQBOX` say so with an error.

.seealso: `DMQBOX`, `DMQBoxCreate()`
@*/
PetscErrorCode DMQBoxSetDiscontinuous(DM dm, PetscBool dg, PetscReal penalty)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetDiscontinuous"));
  PetscCall(DMQBoxCheckNotSetUp(dm));
  PetscValidLogicalCollectiveBool(dm, dg, 2);
  if (penalty != (PetscReal)PETSC_DETERMINE) {
    PetscCheck(penalty > 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "The SIPG penalty factor must be positive (about 2 or more), got %g", (double)penalty);
    q->dgpenalty = penalty;
  }
  q->dg = dg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetDiscontinuous - Whether a `DMQBOX` carries the discontinuous Q_k space (SIPG), and its penalty factor

  Not Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameters:
+ dg      - `PETSC_TRUE` for the discontinuous space (may be `NULL`)
- penalty - the penalty factor C of sigma = C k (k+1) / h (may be `NULL`)

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxSetDiscontinuous()`
@*/
PetscErrorCode DMQBoxGetDiscontinuous(DM dm, PetscBool *dg, PetscReal *penalty)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxGetDiscontinuous"));
  if (dg) *dg = q->dg;
  if (penalty) *penalty = q->dgpenalty;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operations not built for the discontinuous space yet stop here with a message that names them */
PetscErrorCode DMQBoxCheckContinuous_Private(DM dm, const char what[])
{
  PetscFunctionBegin;
  PetscCheck(!((DM_QBox *)dm->data)->dg, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "%s is not available for the discontinuous (DG) space of DMQBOX yet (-dm_qbox_dg)", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetBox - Sets the box [lower_1,upper_1] x ... of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm    - the `DMQBOX`
. lower - lower corner (dim entries)
- upper - upper corner (dim entries)

  Level: beginner

.seealso: `DMQBOX`, `DMQBoxCreate()`
@*/
PetscErrorCode DMQBoxSetBox(DM dm, const PetscReal lower[], const PetscReal upper[])
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxSetBox"));
  PetscCall(DMQBoxCheckNotSetUp(dm));
  for (PetscInt d = 0; d < q->dim; d++) {
    q->lower[d] = lower[d];
    q->upper[d] = upper[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetInfo - Gets the parameters of a `DMQBOX`

  Not Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameters (each may be `NULL`):
+ dim    - spatial dimension
. cells  - global cells per direction (3 entries; unused ones are 1)
. degree - polynomial degree
. lower  - lower corner (3 entries)
- upper  - upper corner (3 entries)

  Level: beginner

.seealso: `DMQBOX`, `DMQBoxCreate()`, `DMQBoxGetOwnedCells()`
@*/
PetscErrorCode DMQBoxGetInfo(DM dm, PetscInt *dim, PetscInt cells[], PetscInt *degree, PetscReal lower[], PetscReal upper[])
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxGetInfo"));
  q = (DM_QBox *)dm->data;
  if (dim) *dim = q->dim;
  if (degree) *degree = q->degree;
  for (PetscInt d = 0; d < 3; d++) {
    if (cells) cells[d] = d < q->dim ? q->cells[d] : 1;
    if (lower) lower[d] = q->lower[d];
    if (upper) upper[d] = q->upper[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetOwnedCells - Gets the box of cells this rank owns

  Not Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameters:
+ start - first owned cell per direction (3 entries)
- count - owned cells per direction (3 entries)

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxGetInfo()`
@*/
PetscErrorCode DMQBoxGetOwnedCells(DM dm, PetscInt start[], PetscInt count[])
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxGetOwnedCells"));
  q = (DM_QBox *)dm->data;
  for (PetscInt d = 0; d < 3; d++) {
    if (start) start[d] = d < q->dim ? q->grid.cs[d] : 0;
    if (count) count[d] = d < q->dim ? q->grid.cm[d] : 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMQBoxGetNodeCoordinates1D - Gets the coordinates of the global nodes along one direction

  Not Collective

  Input Parameters:
+ dm  - the `DMQBOX`
- dir - the direction, 0 <= dir < dim

  Output Parameters:
+ x - the k n_dir + 1 node coordinates (owned by the `DM`, do not free)
- n - their number

  Level: intermediate

.seealso: `DMQBOX`, `DMGetCoordinates()`
@*/
PetscErrorCode DMQBoxGetNodeCoordinates1D(DM dm, PetscInt dir, const PetscReal **x, PetscInt *n)
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxGetNodeCoordinates1D"));
  q = (DM_QBox *)dm->data;
  PetscCheck(dir >= 0 && dir < q->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Direction %" PetscInt_FMT " is not in [0, %" PetscInt_FMT ")", dir, q->dim);
  if (x) *x = q->coords1d[dir];
  if (n) *n = q->dg ? q->cells[dir] * (q->degree + 1) : q->cells[dir] * q->degree + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the number of values given to an array option (PetscOptions*Array() stops silently at its capacity) */
#define DMQBOX_OPTION_COUNT_MAX 8
static PetscErrorCode DMQBoxOptionCount(PetscOptionItems o, const char opt[], PetscInt *n)
{
  PetscReal v[DMQBOX_OPTION_COUNT_MAX];

  PetscFunctionBegin;
  *n = DMQBOX_OPTION_COUNT_MAX;
  PetscCall(PetscOptionsGetRealArray(o->options, o->prefix, opt, v, n, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMSetFromOptions_QBox(DM dm, PetscOptionItems PetscOptionsObject)
{
  DM_QBox  *q   = (DM_QBox *)dm->data;
  PetscInt  dim = q->dim, n;
  PetscInt  cells[3];
  PetscReal box[3];
  PetscBool flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "DMQBOX Options");
  PetscCall(PetscOptionsRangeInt("-dm_qbox_dim", "Spatial dimension", "DMQBoxSetDimension", dim, &dim, &flg, 2, 3));
  if (flg) PetscCall(DMQBoxSetDimension(dm, dim));
  n = q->dim;
  for (PetscInt d = 0; d < 3; d++) cells[d] = q->cells[d];
  PetscCall(PetscOptionsIntArray("-dm_qbox_cells", "Number of cells per direction", "DMQBoxSetCells", cells, &n, &flg));
  if (flg) {
    PetscCall(DMQBoxOptionCount(PetscOptionsObject, "-dm_qbox_cells", &n));
    PetscCheck(n == 1 || n == q->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_qbox_cells takes 1 or %" PetscInt_FMT " values (in %" PetscInt_FMT "D: -dm_qbox_dim sets the dimension), got %s%" PetscInt_FMT, q->dim, q->dim,
               n == DMQBOX_OPTION_COUNT_MAX ? "at least " : "", n);
    if (n == 1)
      for (PetscInt d = 1; d < q->dim; d++) cells[d] = cells[0];
    PetscCall(DMQBoxSetCells(dm, cells));
  }
  PetscCall(PetscOptionsRangeInt("-dm_qbox_degree", "Polynomial degree k of Q_k (1..10 in 2D, 1..8 in 3D)", "DMQBoxSetDegree", q->degree, &q->degree, NULL, 1, VPATCH_MAX_DEGREE));
  n = 3;
  for (PetscInt d = 0; d < 3; d++) box[d] = q->lower[d];
  PetscCall(VPOptionsRealArray("-dm_qbox_lower", "Lower corner of the box", "DMQBoxSetBox", box, &n, &flg));
  if (flg) {
    PetscCall(DMQBoxOptionCount(PetscOptionsObject, "-dm_qbox_lower", &n));
    PetscCheck(n == q->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_qbox_lower takes %" PetscInt_FMT " values (in %" PetscInt_FMT "D), got %s%" PetscInt_FMT, q->dim, q->dim, n == DMQBOX_OPTION_COUNT_MAX ? "at least " : "", n);
    for (PetscInt d = 0; d < q->dim; d++) q->lower[d] = box[d];
  }
  n = 3;
  for (PetscInt d = 0; d < 3; d++) box[d] = q->upper[d];
  PetscCall(VPOptionsRealArray("-dm_qbox_upper", "Upper corner of the box", "DMQBoxSetBox", box, &n, &flg));
  if (flg) {
    PetscCall(DMQBoxOptionCount(PetscOptionsObject, "-dm_qbox_upper", &n));
    PetscCheck(n == q->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_qbox_upper takes %" PetscInt_FMT " values (in %" PetscInt_FMT "D), got %s%" PetscInt_FMT, q->dim, q->dim, n == DMQBOX_OPTION_COUNT_MAX ? "at least " : "", n);
    for (PetscInt d = 0; d < q->dim; d++) q->upper[d] = box[d];
  }
  PetscCall(PetscOptionsBool("-dm_qbox_deterministic", "CUDA operator: scatter by colors of cells (2D) or boxes of cells (3D) instead of atomics (bitwise reproducible)", "DMQBoxCreate", q->deterministic, &q->deterministic, NULL));
  PetscCall(PetscOptionsBool("-dm_qbox_vec_mdot", "CUDA vectors: VecMDot (GMRES orthogonalization) and VecMTDot by petsc-vpatch's kernel, which reads at memory bandwidth, instead of PETSc's", "DMQBOX", q->vecmdot, &q->vecmdot, NULL));
  PetscCall(PetscOptionsBool("-dm_qbox_vec_aypx", "CUDA vectors: VecAYPX (the residual b - A x) in one pass by petsc-vpatch's kernel instead of PETSc's two (scal, axpy)", "DMQBOX", q->vecaypx, &q->vecaypx, NULL));
  PetscCall(PetscOptionsBool("-dm_qbox_vec_long",
                             "CUDA vectors: the operations PETSc passes to cuBLAS with a 32-bit length by petsc-vpatch's 64-bit kernels on every vector (for tests; they are used anyway where a rank holds more than 2^31 - 1 values)", "DMQBOX",
                             q->veclong, &q->veclong, NULL));
  PetscCall(PetscOptionsBool("-dm_qbox_fused_residual", "CUDA, one rank: MatResidual (b - A x, PCMG's and PCVPATCH's residuals) of the matrix-free operator in the operator's kernel, without a MatMult and a VecAYPX", "DMQBOX", q->fusedres,
                             &q->fusedres, NULL));
  PetscCall(PetscOptionsEnum("-dm_qbox_precision", "CUDA arithmetic of this level's operator and transfers", "DMQBoxSetPrecision", VPPrecisions, (PetscEnum)q->precision, (PetscEnum *)&q->precision, NULL));
  PetscCall(PetscOptionsEnum("-dm_qbox_mg_precision", "CUDA arithmetic of the coarser levels' operators and transfers (DMCoarsen)", "DMQBoxSetPrecision", VPPrecisions, (PetscEnum)q->mgprecision, (PetscEnum *)&q->mgprecision, NULL));
  {
    PetscReal mass = q->opweights.mass, stiff = q->opweights.stiff;
    PetscBool fm, fs;
    PetscCall(VPOptionsReal("-dm_qbox_operator_mass", "DMCreateMatrix(): the weight of the mass matrix in mass M + stiffness K (1/dt: a backward Euler step)", "DMQBoxSetOperatorWeights", mass, &mass, &fm));
    PetscCall(VPOptionsReal("-dm_qbox_operator_stiffness", "DMCreateMatrix(): the weight of the stiffness matrix in mass M + stiffness K", "DMQBoxSetOperatorWeights", stiff, &stiff, &fs));
    if (fm || fs) PetscCall(DMQBoxSetOperatorWeights(dm, mass, stiff));
  }
  PetscCall(PetscOptionsBool("-dm_qbox_coordinates", "Store node coordinates in the DM (DMGetCoordinates)", "DMQBoxCreate", q->storecoords, &q->storecoords, NULL));
  PetscCall(PetscOptionsBool("-dm_qbox_dg", "Discontinuous Q_k space (SIPG) instead of the continuous one", "DMQBoxSetDiscontinuous", q->dg, &q->dg, NULL));
  PetscCall(VPOptionsReal("-dm_qbox_dg_penalty", "SIPG penalty factor C: sigma = C k (k+1) / h", "DMQBoxSetDiscontinuous", q->dgpenalty, &q->dgpenalty, NULL));
  PetscCheck(q->dgpenalty > 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_qbox_dg_penalty must be positive (about 2 or more), got %g", (double)q->dgpenalty);
  PetscCall(PetscOptionsBool("-dm_qbox_exchange_device",
                             "Several ranks, CUDA vectors: pass device buffers of the exchanges to MPI after a probe (an MPI that moves device memory point to point but fails PETSc's -use_gpu_aware_mpi check; default -vpatch_exchange_device)",
                             "DMQBOX", q->exchdevice, &q->exchdevice, NULL));
  PetscCall(PetscOptionsBool("-dm_qbox_gather", "Several ranks: DMCoarsen() gathers a level onto rank 0 where the partition cannot be halved or the level gets small (-dm_qbox_gather_cells), so that the hierarchy is as deep as on one rank",
                             "DMCoarsen", q->gather, &q->gather, NULL));
  PetscCall(
      PetscOptionsInt("-dm_qbox_gather_cells", "Several ranks: DMCoarsen() gathers the coarse level onto rank 0 once it would have fewer cells than this in all (-1: 2^21 / k^dim, about 2M nodes)", "DMCoarsen", q->gathercells, &q->gathercells, NULL));
  PetscCheck(q->gathercells >= -1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
             "-dm_qbox_gather_cells %" PetscInt_FMT ": give a number of cells (0: gather only where the partition cannot be halved), or -1 for the default 2^21 / k^dim", q->gathercells);
  PetscCall(PetscOptionsInt("-dm_qbox_gather_stage",
                            "Several ranks: each gathering coarsening puts the level on about 1/f of the ranks that own the finer one, the process grid halved along its largest directions, until one rank holds it (0: onto rank 0 at once)",
                            "DMCoarsen", q->gatherstage, &q->gatherstage, NULL));
  PetscCheck(q->gatherstage == 0 || q->gatherstage >= 2, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
             "-dm_qbox_gather_stage %" PetscInt_FMT ": give a factor of 2 or more (8: one rank in 8 per stage), or 0 to gather onto rank 0 at once", q->gatherstage);
  {
    PetscInt  pr[3] = {0, 0, 0}, np = 3;
    PetscBool set;
    PetscCall(PetscOptionsIntArray("-dm_qbox_procs", "Several ranks: the process grid px,py[,pz] (its product the process count; default: the grid of least interface area)", "DMQBOX", pr, &np, &set));
    if (set) {
      PetscCheck(np == q->dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_SIZ, "-dm_qbox_procs takes %" PetscInt_FMT " values (processes per direction), got %" PetscInt_FMT, q->dim, np);
      for (PetscInt d = 0; d < q->dim; d++) PetscCheck(pr[d] >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_qbox_procs: %" PetscInt_FMT " processes along direction %" PetscInt_FMT ": give at least 1", pr[d], d);
      for (PetscInt d = 0; d < 3; d++) q->procsopt[d] = d < q->dim ? pr[d] : 1;
    }
  }
  PetscCall(PetscOptionsBool("-dm_qbox_ghosted_vectors", "Several ranks with a partition in slabs (of the slowest direction): global vectors inside ghosted buffers, so that the kernels work on them with no copy to local vectors", "DMQBOX",
                             q->ghostedvecs, &q->ghostedvecs, NULL));
  PetscCall(DMQBoxSetFromOptions_Geometry(dm, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The process grid: every process needs a cell per direction. With ghosted global vectors (-dm_qbox_ghosted_vectors,
   the default), slabs of the slowest direction where every process gets at least DMQBOX_SLAB_MIN_CELLS cells along it:
   a global vector then lives inside its ghosted buffer and the kernels need no copies to and from local vectors, which
   on 4 H200 made slabs 17-25% faster than the grid of least interface area (1 x 2 x 2) despite their larger faces
   (bench/history/). Else the grid of least interface area. -dm_qbox_procs overrides both. */
#define DMQBOX_SLAB_MIN_CELLS 16
/* the coercivity of the SIPG form is checked on a 1D mesh of at most this many cells (LAPACK, microseconds) */
#define DMQBOX_DG_CHECK_CELLS 16
static PetscErrorCode DMQBoxChooseProcessGrid(DM dm)
{
  DM_QBox    *q = (DM_QBox *)dm->data;
  PetscMPIInt size;
  PetscReal   best = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (q->procsopt[0] > 0) { /* -dm_qbox_procs */
    PetscCheck(q->procsopt[0] * q->procsopt[1] * q->procsopt[2] == size, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_INCOMP,
               "-dm_qbox_procs %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " is a grid of %" PetscInt_FMT " processes, the communicator has %d: give a grid whose product is the process count", q->procsopt[0], q->procsopt[1], q->procsopt[2],
               q->procsopt[0] * q->procsopt[1] * q->procsopt[2], size);
    for (PetscInt d = 0; d < q->dim; d++)
      PetscCheck(q->procsopt[d] <= q->cells[d], PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_INCOMP,
                 "-dm_qbox_procs: %" PetscInt_FMT " processes along direction %" PetscInt_FMT " of %" PetscInt_FMT " cells (every process needs at least one cell per direction): use fewer processes along it", q->procsopt[d], d, q->cells[d]);
    for (PetscInt d = 0; d < 3; d++) q->procs[d] = q->procsopt[d];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  q->procs[0] = q->procs[1] = q->procs[2] = 0;
  if (size > 1 && q->ghostedvecs && q->cells[q->dim - 1] >= DMQBOX_SLAB_MIN_CELLS * size) {
    q->procs[0] = q->procs[1] = q->procs[2] = 1;
    q->procs[q->dim - 1]                    = size;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt p0 = 1; p0 <= size; p0++) {
    if (size % p0) continue;
    for (PetscInt p1 = 1; p1 <= size / p0; p1++) {
      PetscInt p[3] = {p0, p1, size / (p0 * p1)};
      if ((size / p0) % p1) continue;
      if (q->dim == 2 && p[2] != 1) continue;
      PetscBool ok   = PETSC_TRUE;
      PetscReal cost = 0;
      for (PetscInt d = 0; d < q->dim; d++) {
        PetscReal area = 1;
        if (p[d] > q->cells[d]) ok = PETSC_FALSE;
        for (PetscInt e = 0; e < q->dim; e++)
          if (e != d) area *= q->cells[e];
        cost += (p[d] - 1) * area;
      }
      if (ok && cost < best) {
        best = cost;
        for (PetscInt d = 0; d < 3; d++) q->procs[d] = p[d];
      }
    }
  }
  PetscCheck(q->procs[0], PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_INCOMP,
             "DMQBOX: %d processes cannot share a mesh of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells (every process needs at least one cell per direction): use more cells or fewer processes", size, q->cells[0], q->cells[1],
             q->dim == 3 ? q->cells[2] : 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cells per process column, in units of a power of two u dividing n_d (the partition stays aligned under log2(u)
   coarsenings; DMCoarsen() gathers the levels below): the largest u whose largest column, ceil(n_d / u / p) u cells, is
   within 1/16 of the best balance any u gives. The largest u alone can cost much: 640 cells on 2 columns in units of
   128 are 384 + 256 (the slowest rank 1.2x the mean), in units of 64 320 + 320; 768 on 2: 512 + 256 against 384 + 384. */
PetscErrorCode DMQBoxPartition_Private(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < q->dim; d++) {
    const PetscInt n = q->cells[d], p = q->procs[d];
    PetscInt       unit = 1, best = PETSC_INT_MAX;

    for (PetscInt u = 1; n % u == 0 && n / u >= p; u *= 2) best = PetscMin(best, (n / u + p - 1) / p * u);
    for (PetscInt u = 1; n % u == 0 && n / u >= p; u *= 2)
      if (16 * ((n / u + p - 1) / p * u) <= 17 * best) unit = u;
    PetscInt nu = n / unit;
    PetscCall(PetscMalloc1(p, &q->lc[d]));
    for (PetscInt i = 0; i < p; i++) q->lc[d][i] = (nu / p + (i < nu % p ? 1 : 0)) * unit;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* node ownership of each process column per direction: cells owned times k, and the last node on the last column */
static PetscErrorCode DMQBoxNodeOwnership(DM dm, PetscInt *ln[3])
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) ln[d] = NULL;
  for (PetscInt d = 0; d < q->dim; d++) {
    PetscCall(PetscMalloc1(q->procs[d], &ln[d]));
    for (PetscInt i = 0; i < q->procs[d]; i++) ln[d][i] = q->lc[d][i] * q->degree + (i == q->procs[d] - 1 ? 1 : 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A node-level DMDA with the partition of the DMQBOX: dof values per node, box stencil of width k.
   Its options prefix keeps the user's -dm_* options (meant for the DMQBOX) away from it. */
static PetscErrorCode DMQBoxCreateNodeDA(DM dm, PetscInt dof, DM *da)
{
  DM_QBox *q   = (DM_QBox *)dm->data;
  PetscInt dim = q->dim, M[3] = {1, 1, 1}, *ln[3];

  PetscFunctionBegin;
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    PetscCheck(q->procs[0] * q->procs[1] * q->procs[2] == size, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP,
               "DMQBOX: this level is gathered onto %" PetscInt_FMT " of %d processes (DMCoarsen(), -dm_qbox_gather), which a DMDA cannot describe: exchanges other than INSERT_VALUES/ADD_VALUES are not available on it; use -dm_qbox_gather false",
               q->procs[0] * q->procs[1] * q->procs[2], size);
  }
  for (PetscInt d = 0; d < dim; d++) M[d] = q->cells[d] * q->degree + 1;
  PetscCall(DMQBoxNodeOwnership(dm, ln));
  PetscCall(DMDACreate(PetscObjectComm((PetscObject)dm), da));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*da, "dm_qbox_internal_"));
  PetscCall(DMSetDimension(*da, dim));
  PetscCall(DMDASetSizes(*da, M[0], M[1], M[2]));
  PetscCall(DMDASetNumProcs(*da, q->procs[0], q->procs[1], dim == 3 ? q->procs[2] : PETSC_DECIDE));
  PetscCall(DMDASetOwnershipRanges(*da, ln[0], ln[1], dim == 3 ? ln[2] : NULL));
  PetscCall(DMDASetBoundaryType(*da, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE));
  PetscCall(DMDASetDof(*da, dof));
  PetscCall(DMDASetStencilType(*da, DMDA_STENCIL_BOX));
  PetscCall(DMDASetStencilWidth(*da, q->degree));
  PetscCall(DMSetUp(*da));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(ln[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inner node-level DMDA (ghost exchange on several ranks, local-to-global mapping, natural ordering), made on
   first use: collective, like every caller. Checks that its boxes are those of the DMQBOX grid. */
PetscErrorCode DMQBoxGetNodeDA_Private(DM dm, DM *da)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckContinuous_Private(dm, "The node DMDA (natural ordering, exchanges other than INSERT/ADD, VTK output)"));
  if (!q->da) {
    PetscInt c[3][4]; /* xs, xm, gxs, gxm per direction */

    PetscCall(DMQBoxCreateNodeDA(dm, 1, &q->da));
    PetscCall(DMDAGetCorners(q->da, &c[0][0], &c[1][0], &c[2][0], &c[0][1], &c[1][1], &c[2][1]));
    PetscCall(DMDAGetGhostCorners(q->da, &c[0][2], &c[1][2], &c[2][2], &c[0][3], &c[1][3], &c[2][3]));
    for (PetscInt d = 0; d < q->dim; d++)
      PetscCheck(c[d][0] == q->grid.xs[d] && c[d][1] == q->grid.xm[d] && c[d][2] == q->grid.gxs[d] && c[d][3] == q->grid.gxm[d], PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX: the node DMDA's boxes differ from the DMQBOX grid in direction %" PetscInt_FMT,
                 d);
  }
  *da = q->da;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMQBoxSetUpCoordinates(DM dm)
{
  DM_QBox     *q = (DM_QBox *)dm->data;
  DM           cdm;
  Vec          c;
  PetscScalar *a;
  PetscInt     zs = q->dim == 3 ? q->grid.xs[2] : 0, zm = q->dim == 3 ? q->grid.xm[2] : 1, i = 0;

  PetscFunctionBegin;
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    if (q->procs[0] * q->procs[1] * q->procs[2] < size) { /* a gathered level (no DMDA for it): the vector alone */
      PetscCall(VecCreate(PetscObjectComm((PetscObject)dm), &c));
      PetscCall(VecSetSizes(c, q->dim * q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2], PETSC_DETERMINE));
      PetscCall(VecSetBlockSize(c, q->dim));
      PetscCall(VecSetType(c, VECSTANDARD));
      cdm = NULL;
    } else {
      PetscCall(DMQBoxCreateNodeDA(dm, q->dim, &cdm));
      PetscCall(DMSetCoordinateDM(dm, cdm));
      PetscCall(DMCreateGlobalVector(cdm, &c));
    }
  }
  PetscCall(PetscObjectSetName((PetscObject)c, "coordinates"));
  PetscCall(VecGetArray(c, &a));
  for (PetscInt pz = zs; pz < zs + zm; pz++)
    for (PetscInt py = q->grid.xs[1]; py < q->grid.xs[1] + q->grid.xm[1]; py++)
      for (PetscInt px = q->grid.xs[0]; px < q->grid.xs[0] + q->grid.xm[0]; px++) {
        PetscReal X[3] = {q->coords1d[0][px], q->coords1d[1][py], q->dim == 3 ? q->coords1d[2][pz] : 0.0}, x[3];
        PetscCall(DMQBoxMapPoint(dm, X, x)); /* the physical point (X without a map) */
        for (PetscInt d = 0; d < q->dim; d++) a[i++] = x[d];
      }
  PetscCall(VecRestoreArray(c, &a));
  PetscCall(DMSetCoordinates(dm, c));
  PetscCall(VecDestroy(&c));
  PetscCall(DMDestroy(&cdm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the node coordinates in the DM (DMGetCoordinates()) when -dm_qbox_coordinates did not store them: for a method that
   needs them (PCAUXAMG on a coarse level of PCMG) */
PetscErrorCode DMQBoxSetUpCoordinates_Private(DM dm)
{
  Vec c;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckContinuous_Private(dm, "DMGetCoordinates() (node coordinates)"));
  PetscCall(DMGetCoordinates(dm, &c));
  if (!c) PetscCall(DMQBoxSetUpCoordinates(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The boxes of process column i along direction d: b = first owned node, owned nodes (ownership on multiples of k,
   the last node to the last column), first node of the ghosted box (box stencil of width k, no periodicity) and its
   extent, first owned cell, owned cells; one node and one cell for d >= dim. The rule of the inner DMDA. */
PetscErrorCode DMQBoxColumnBox_Private(DM dm, PetscInt d, PetscInt i, PetscInt b[6])
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt k = q->degree, M, sum = 0;

  PetscFunctionBegin;
  if (d >= q->dim) {
    b[0] = b[2] = b[4] = 0;
    b[1] = b[3] = b[5] = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt j = 0; j < i; j++) sum += q->lc[d][j];
  if (q->dg) { /* (k+1) nodes per cell, none shared; the ghost layer is one cell */
    M    = q->cells[d] * (k + 1);
    b[0] = sum * (k + 1);
    b[1] = q->lc[d][i] * (k + 1);
    b[2] = PetscMax(b[0] - (k + 1), 0);
    b[3] = PetscMin(b[0] + b[1] + k + 1, M) - b[2];
  } else {
    M    = q->cells[d] * k + 1;
    b[0] = sum * k;
    b[1] = q->lc[d][i] * k + (i == q->procs[d] - 1 ? 1 : 0);
    b[2] = PetscMax(b[0] - k, 0);
    b[3] = PetscMin(b[0] + b[1] + k, M) - b[2];
  }
  b[4] = sum;
  b[5] = q->lc[d][i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ranks started with different options would otherwise fail later in an exchange ("rank 1 sends 66 values to rank 0,
   which expects 34") or hang: the global settings must agree */
static PetscErrorCode DMQBoxCheckSameOnRanks(DM dm)
{
  DM_QBox          *q       = (DM_QBox *)dm->data;
  const char *const names[] = {"the dimension (-dm_qbox_dim)",
                               "the cells in x (-dm_qbox_cells)",
                               "the cells in y (-dm_qbox_cells)",
                               "the cells in z (-dm_qbox_cells)",
                               "the degree (-dm_qbox_degree)",
                               "the lower corner in x (-dm_qbox_lower)",
                               "the lower corner in y (-dm_qbox_lower)",
                               "the lower corner in z (-dm_qbox_lower)",
                               "the upper corner in x (-dm_qbox_upper)",
                               "the upper corner in y (-dm_qbox_upper)",
                               "the upper corner in z (-dm_qbox_upper)",
                               "the discontinuous space (-dm_qbox_dg)",
                               "the SIPG penalty (-dm_qbox_dg_penalty)",
                               "the map (-dm_qbox_mapping)",
                               "the inner shell radius (-dm_qbox_shell_radii)",
                               "the outer shell radius (-dm_qbox_shell_radii)",
                               "the deformation (-dm_qbox_deform_amplitude)",
                               "the coefficient (-dm_qbox_coefficient)",
                               "the contrast (-dm_qbox_coefficient_contrast)",
                               "the mass weight (-dm_qbox_operator_mass)",
                               "the stiffness weight (-dm_qbox_operator_stiffness)",
                               "the precision (-dm_qbox_precision)",
                               "the coarse levels' precision (-dm_qbox_mg_precision)",
                               "the process grid in x (-dm_qbox_procs)",
                               "the process grid in y (-dm_qbox_procs)",
                               "the process grid in z (-dm_qbox_procs)",
                               "gathering (-dm_qbox_gather)",
                               "the gathering size (-dm_qbox_gather_cells)",
                               "the gathering stage (-dm_qbox_gather_stage)",
                               "the ghosted vectors (-dm_qbox_ghosted_vectors)",
                               "the stored coordinates (-dm_qbox_coordinates)"};
  const PetscReal   v[]     = {(PetscReal)q->dim,
                               (PetscReal)q->cells[0],
                               (PetscReal)q->cells[1],
                               (PetscReal)q->cells[2],
                               (PetscReal)q->degree,
                               q->lower[0],
                               q->lower[1],
                               q->lower[2],
                               q->upper[0],
                               q->upper[1],
                               q->upper[2],
                               (PetscReal)q->dg,
                               q->dgpenalty,
                               (PetscReal)q->maptype,
                               q->radii[0],
                               q->radii[1],
                               q->amplitude,
                               (PetscReal)q->coeftype,
                               q->contrast,
                               q->opweights.mass,
                               q->opweights.stiff,
                               (PetscReal)q->precision,
                               (PetscReal)q->mgprecision,
                               (PetscReal)q->procsopt[0],
                               (PetscReal)q->procsopt[1],
                               (PetscReal)q->procsopt[2],
                               (PetscReal)q->gather,
                               (PetscReal)q->gathercells,
                               (PetscReal)q->gatherstage,
                               (PetscReal)q->ghostedvecs,
                               (PetscReal)q->storecoords};

  PetscFunctionBegin;
  PetscCheck(PETSC_STATIC_ARRAY_LENGTH(names) == PETSC_STATIC_ARRAY_LENGTH(v), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBoxCheckSameOnRanks(): a setting without its name");
  PetscCall(VPCheckSameOnRanks_Private(PetscObjectComm((PetscObject)dm), "DMQBOX", (PetscInt)PETSC_STATIC_ARRAY_LENGTH(v), v, names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMSetUp_QBox(DM dm)
{
  DM_QBox    *q    = (DM_QBox *)dm->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)dm);
  PetscInt    k = q->degree, dim = q->dim, maxk = dim == 3 ? VPATCH_MAX_DEGREE_3D : VPATCH_MAX_DEGREE;
  PetscInt    M[3] = {1, 1, 1}, rankc[3];
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSameOnRanks(dm));
  PetscCheck(k >= 1 && k <= maxk, comm, PETSC_ERR_ARG_OUTOFRANGE, "DMQBOX in %" PetscInt_FMT "D supports degree 1..%" PetscInt_FMT ", not %" PetscInt_FMT ": change -dm_qbox_degree", dim, maxk, k);
  for (PetscInt d = 0; d < dim; d++) {
    PetscCheck(q->cells[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "DMQBOX needs at least one cell per direction, got %" PetscInt_FMT " in direction %" PetscInt_FMT, q->cells[d], d);
    PetscCheck(!PetscIsInfOrNanReal(q->lower[d]) && !PetscIsInfOrNanReal(q->upper[d]), comm, PETSC_ERR_ARG_OUTOFRANGE, "DMQBOX box corner is not a finite number in direction %" PetscInt_FMT ": lower %g, upper %g", d, (double)q->lower[d],
               (double)q->upper[d]);
    PetscCheck(q->upper[d] > q->lower[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "DMQBOX box is empty in direction %" PetscInt_FMT ": lower %g >= upper %g", d, (double)q->lower[d], (double)q->upper[d]);
  }
  PetscCall(DMQBoxCheckVecType_Private(dm));
  if (q->dg) { /* what the discontinuous space has so far */
    PetscCheck(!DMQBoxIsGeneral_Private(q), comm, PETSC_ERR_SUP, "The discontinuous space of DMQBOX (-dm_qbox_dg) is for the Cartesian box without a coefficient so far: drop -dm_qbox_mapping / -dm_qbox_coefficient");
    PetscCheck(!q->storecoords, comm, PETSC_ERR_SUP, "The discontinuous space of DMQBOX (-dm_qbox_dg) does not store coordinates: use DMQBoxGetNodeCoordinates1D()");
  }
  { /* every node count, global and per rank with ghosts, must fit in PetscInt */
    double nodes = 1;
    for (PetscInt d = 0; d < dim; d++) nodes *= (double)q->cells[d] * (double)k + (q->dg ? (double)q->cells[d] : 1.0);
#if defined(PETSC_USE_64BIT_INDICES)
    PetscCheck(nodes <= (double)PETSC_INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "DMQBOX: Q_%" PetscInt_FMT " on %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells has %.4g nodes, more than a 64-bit PetscInt holds (%" PetscInt_FMT "): use fewer cells", k, q->cells[0], q->cells[1],
               dim == 3 ? q->cells[2] : 1, nodes, PETSC_INT_MAX);
#else
    PetscCheck(nodes <= (double)PETSC_INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "DMQBOX: Q_%" PetscInt_FMT " on %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells has %.4g nodes, more than this PETSc's 32-bit PetscInt holds (%" PetscInt_FMT
               "): use a PETSc configured with --with-64-bit-indices (the bootstrap's is), or fewer cells",
               k, q->cells[0], q->cells[1], dim == 3 ? q->cells[2] : 1, nodes, PETSC_INT_MAX);
#endif
  }
  if (!q->lc[0]) {
    PetscCall(DMQBoxChooseProcessGrid(dm));
    PetscCall(DMQBoxPartition_Private(dm));
  }
  PetscCall(VPBasis1DSetUp(k, &q->basis));

  /* this rank's boxes of nodes and cells, as the inner DMDA would make them; the ranks past the process grid (a level
     gathered onto fewer ranks, DMCoarsen()) own nothing */
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCheck(q->procs[0] * q->procs[1] * q->procs[2] <= size, comm, PETSC_ERR_ARG_INCOMP, "DMQBOX: a process grid of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " needs at least that many processes, the communicator has %d",
               q->procs[0], q->procs[1], q->procs[2], size);
    q->active = (PetscBool)(rank < q->procs[0] * q->procs[1] * q->procs[2]);
  }
  rankc[0] = rank % q->procs[0];
  rankc[1] = (rank / q->procs[0]) % q->procs[1];
  rankc[2] = rank / (q->procs[0] * q->procs[1]);
  {
    VPGrid *g = &q->grid;

    PetscCall(PetscMemzero(g, sizeof(*g)));
    g->dim = dim;
    g->k   = k;
    for (PetscInt d = 0; d < 3; d++) {
      PetscBool act = (PetscBool)(d < dim);
      PetscInt  b[6];

      PetscCall(DMQBoxColumnBox_Private(dm, d, act && q->active ? rankc[d] : 0, b));
      M[d]            = act ? q->cells[d] * k + 1 : 1;
      q->cellstart[d] = b[4];
      g->N[d]         = act ? q->cells[d] : 1;
      g->cs[d]        = b[4];
      g->cm[d]        = b[5];
      g->xs[d]        = b[0];
      g->xm[d]        = b[1];
      g->gxs[d]       = b[2];
      g->gxm[d]       = b[3];
      g->h[d]         = act ? (q->upper[d] - q->lower[d]) / q->cells[d] : 1.0;
      if (!q->active && act) { /* nothing owned: empty boxes at the origin */
        q->cellstart[d] = g->cs[d] = g->xs[d] = g->gxs[d] = 0;
        g->cm[d] = g->xm[d] = g->gxm[d] = 0;
      }
    }
    if (q->dg) /* (k+1) nodes per cell and direction (the boxes above count them), the 1D SIPG blocks */
      for (PetscInt d = 0; d < dim; d++) {
        M[d] = q->cells[d] * (k + 1);
        PetscCall(VPDG1DSetUp(&q->basis, q->cells[d], g->h[d], q->dgpenalty, &q->dg1d[d]));
      }
    if (q->dg) { /* below a bound that depends on k the form is indefinite and every solver fails (NaN) */
      PetscReal lmin, cmin;
      PetscInt  m = PetscMin(q->cells[0], DMQBOX_DG_CHECK_CELLS);
      PetscCall(VPDG1DCoercivity(&q->basis, m, q->dgpenalty, &lmin, NULL));
      if (lmin <= 0) {
        PetscCall(VPDG1DCoercivity(&q->basis, m, q->dgpenalty, &lmin, &cmin));
        SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_qbox_dg_penalty %g: the SIPG form of Q_%" PetscInt_FMT " is not coercive (the 1D operator on %" PetscInt_FMT " cell%s has the eigenvalue %.3g): give at least %.3g (default 2)",
                (double)q->dgpenalty, k, m, m > 1 ? "s" : "", (double)lmin, (double)(1.01 * cmin));
      }
    }
    q->slab = (PetscBool)(q->procs[0] * q->procs[1] * q->procs[2] > 1 && q->procs[0] * q->procs[1] * q->procs[2] == q->procs[dim - 1]);
    /* the local box is the owned box: one process owns the level (its box has no ghosts; the others own nothing). The
       same on every rank, since code paths that branch on it run collectives: on a level gathered onto several of the
       processes, the empty boxes of the others equal their ghosted boxes too, but those ranks must take the exchanges */
    q->samelayout = (PetscBool)(q->procs[0] * q->procs[1] * q->procs[2] == 1);
    PetscCheck(!q->active || !q->samelayout || (g->gxs[0] == g->xs[0] && g->gxm[0] == g->xm[0] && g->gxs[1] == g->xs[1] && g->gxm[1] == g->xm[1] && g->gxs[2] == g->xs[2] && g->gxm[2] == g->xm[2]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "DMQBOX: the one process of the grid has a ghost layer");
  }
  for (PetscInt d = 0; d < dim; d++) {
    PetscCall(PetscMalloc1(M[d], &q->coords1d[d]));
    if (q->dg)
      for (PetscInt c = 0; c < q->cells[d]; c++)
        for (PetscInt i = 0; i <= k; i++) q->coords1d[d][c * (k + 1) + i] = q->lower[d] + (c + q->basis.nodes[i]) * q->grid.h[d];
    else {
      for (PetscInt c = 0; c < q->cells[d]; c++)
        for (PetscInt i = 0; i < k; i++) q->coords1d[d][c * k + i] = q->lower[d] + (c + q->basis.nodes[i]) * q->grid.h[d];
      q->coords1d[d][M[d] - 1] = q->upper[d];
    }
  }
  if (q->storecoords) PetscCall(DMQBoxSetUpCoordinates(dm));
  { /* this mesh is the coarsest one refined levels-1 times: PCMG without -pc_mg_levels takes the whole hierarchy */
    PetscInt levels, cur;
    PetscCall(DMGetRefineLevel(dm, &cur));
    PetscCall(DMQBoxMaxLevels_Private(dm, &levels));
    if (!cur) PetscCall(DMSetRefineLevel(dm, levels - 1));
  }
  { /* default KSP operator callback (DMCreateMatrix() gives the whole operator), unless the user set one */
    PetscErrorCode (*func)(KSP, Mat, Mat, void *) = NULL;
    PetscCall(DMKSPGetComputeOperators(dm, &func, NULL));
    if (!func) PetscCall(DMKSPSetComputeOperators(dm, DMQBoxComputeOperators_Private, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMDestroy_QBox(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMDestroy(&q->da));
  PetscCall(DMQBoxDestroyExchange_Private(dm));
  PetscCall(VPDeviceFree_Private(&q->d_lap));
  PetscCall(VPDeviceFree_Private(&q->d_dg));
  PetscCall(VPDeviceFree_Private(&q->d_dgembed));
  PetscCall(DMQBoxDestroyGeometry_Private(dm));
  for (PetscInt d = 0; d < 3; d++) {
    PetscCall(PetscFree(q->lc[d]));
    PetscCall(PetscFree(q->coords1d[d]));
  }
  PetscCall(PetscFree(dm->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMView_QBox(DM dm, PetscViewer viewer)
{
  DM_QBox  *q = (DM_QBox *)dm->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (!dm->setupcalled) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "DMQBOX (not set up): dim %" PetscInt_FMT ", degree %" PetscInt_FMT "\n", q->dim, q->degree));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscInt          dim = q->dim, k = q->degree, ntot = 1, nint = 1;
  PetscMPIInt       size;
  PetscViewerFormat format;

  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  for (PetscInt d = 0; d < dim; d++) {
    ntot *= q->cells[d] * k + 1;
    nint *= q->cells[d] * k - 1;
  }
  if (q->dg)
    PetscCall(PetscViewerASCIIPrintf(viewer, "DMQBOX: discontinuous Q_%" PetscInt_FMT " in %" PetscInt_FMT "D (SIPG, penalty %g k (k+1) / h), Gauss-Lobatto nodes\n", k, dim, (double)q->dgpenalty));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "DMQBOX: continuous Q_%" PetscInt_FMT " in %" PetscInt_FMT "D, Gauss-Lobatto nodes\n", k, dim));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (dim == 2) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "cells %" PetscInt_FMT " x %" PetscInt_FMT " on [%g,%g] x [%g,%g]\n", q->cells[0], q->cells[1], (double)q->lower[0], (double)q->upper[0], (double)q->lower[1], (double)q->upper[1]));
  } else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "cells %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " on [%g,%g] x [%g,%g] x [%g,%g]\n", q->cells[0], q->cells[1], q->cells[2], (double)q->lower[0], (double)q->upper[0], (double)q->lower[1],
                                     (double)q->upper[1], (double)q->lower[2], (double)q->upper[2]));
  }
  if (q->dg) {
    ntot = 1;
    for (PetscInt d = 0; d < dim; d++) ntot *= q->cells[d] * (k + 1);
    PetscCall(PetscViewerASCIIPrintf(viewer, "unknowns %" PetscInt_FMT " ((k+1)^d per cell)\n", ntot));
  } else
    PetscCall(PetscViewerASCIIPrintf(viewer, "nodes %" PetscInt_FMT " (boundary included), unknowns %" PetscInt_FMT "\n", ntot, nint));
  PetscCall(DMQBoxViewGeometry_Private(dm, viewer));
  if (q->opweights.mass != 0 || q->opweights.stiff != 1) PetscCall(PetscViewerASCIIPrintf(viewer, "DMCreateMatrix(): %g M + %g K (mass and stiffness)\n", (double)q->opweights.mass, (double)q->opweights.stiff));
  if (q->precision != VP_PRECISION_DOUBLE || q->mgprecision != VP_PRECISION_DOUBLE) PetscCall(PetscViewerASCIIPrintf(viewer, "CUDA arithmetic: %s on this level, %s on coarser levels\n", VPPrecisions[q->precision], VPPrecisions[q->mgprecision]));
  if (dm->vectype && q->vecmdot) {
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda) PetscCall(PetscViewerASCIIPrintf(viewer, "VecMDot of the global vectors: petsc-vpatch's kernel (-dm_qbox_vec_mdot)\n"));
  }
  if (dm->vectype && q->vecaypx) {
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda) PetscCall(PetscViewerASCIIPrintf(viewer, "VecAYPX of the global vectors: petsc-vpatch's kernel (-dm_qbox_vec_aypx)\n"));
  }
  if (q->veclong || (q->veclongknown && q->veclongglobal))
    PetscCall(PetscViewerASCIIPrintf(viewer, "CUDA vector operations: petsc-vpatch's kernels with 64-bit lengths (%s)\n", q->veclong ? "-dm_qbox_vec_long" : "a rank holds more than 2^31 - 1 values"));
  if (dm->vectype && q->samelayout && !q->dg) {
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda)
      PetscCall(PetscViewerASCIIPrintf(viewer, "MatResidual of the operator: %s (-dm_qbox_fused_residual)\n",
                                       !q->fusedres ? "MatMult and VecAYPX" : (DMQBoxIsGeneral_Private(q) ? "the kernel adds -K x into a copy of b (stiffness only; with a mass term MatMult and VecAYPX)" : "in the operator's kernel, one pass")));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "processes %d: grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", vector type %s, matrix type %s\n", size, q->procs[0], q->procs[1], dim == 3 ? q->procs[2] : 1, dm->vectype, dm->mattype));
  if (size > 1 && (q->ghostx.sf || q->exchdevice)) {
    const char *how = q->exchange == DMQBOX_EXCHANGE_DEVICE        ? "device buffers passed to MPI"
                      : q->exchange == DMQBOX_EXCHANGE_HOST_PROBED ? "staged through host memory (-dm_qbox_exchange_device: the probe found that MPI does not move device memory)"
                      : q->ghostx.sf                               ? "host buffers"
                                                                   : "not made yet";
    PetscCall(PetscViewerASCIIPrintf(viewer, "exchanges: %s\n", how));
  }
  if (size > 1 && q->procs[0] * q->procs[1] * q->procs[2] < size)
    PetscCall(PetscViewerASCIIPrintf(viewer, "gathered onto %" PetscInt_FMT " of the %d processes, grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (-dm_qbox_gather, -dm_qbox_gather_stage %" PetscInt_FMT ")\n",
                                     q->procs[0] * q->procs[1] * q->procs[2], size, q->procs[0], q->procs[1], q->procs[2], q->gatherstage));
  if (q->slab) PetscCall(PetscViewerASCIIPrintf(viewer, "global vectors: %s\n", q->ghostedvecs ? "inside ghosted buffers (slabs; -dm_qbox_ghosted_vectors)" : "owned values only; kernels on copies in local vectors (-dm_qbox_ghosted_vectors false)"));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] cells [%" PetscInt_FMT ",%" PetscInt_FMT ") x [%" PetscInt_FMT ",%" PetscInt_FMT ") x [%" PetscInt_FMT ",%" PetscInt_FMT ")\n", rank, q->grid.cs[0], q->grid.cs[0] + q->grid.cm[0],
                                                 q->grid.cs[1], q->grid.cs[1] + q->grid.cm[1], q->grid.cs[2], q->grid.cs[2] + q->grid.cm[2]));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  DMQBOX - "qbox": continuous Q_k finite elements (Gauss-Lobatto nodes) on a Cartesian mesh of a
  box in 2D or 3D, for high-order geometric multigrid

  Provides global and local vectors of the type set by `-dm_vec_type` (standard or cuda),
  `DMCreateMatrix()` (the matrix-free Laplacian as a `MATSHELL`, or assembled with
  `-dm_mat_type aij|aijcusparse`), `DMCoarsen()`, `DMRefine()`, `DMCreateInterpolation()`
  (matrix-free), coordinates, `DMView()`, and the helpers `DMQBoxComputeRHS()`,
  `DMQBoxProjectFunction()`, `DMQBoxComputeError()`, `DMQBoxVecViewVTK()`. With `KSPSetDM()`,
  `PCMG` builds the whole hierarchy by itself.

  Options Database Keys:
+ -dm_qbox_dim <d>            - spatial dimension (2 or 3)
. -dm_qbox_cells <n1,n2[,n3]> - cells per direction (one value: the same in every direction)
. -dm_qbox_degree <k>         - polynomial degree (1..10 in 2D, 1..8 in 3D)
. -dm_qbox_lower <a1,...>     - lower corner of the box
. -dm_qbox_upper <b1,...>     - upper corner of the box
. -dm_qbox_coordinates <bool> - store node coordinates for `DMGetCoordinates()` (default false; levels made by `DMCoarsen()`/`DMRefine()` inherit it)
. -dm_qbox_deterministic <bool> - CUDA operator without atomics (bitwise reproducible; default false)
. -dm_qbox_vec_mdot <bool>    - `VecMDot()` and `VecMTDot()` of the CUDA global vectors (and their duplicates, e.g. the GMRES basis) by petsc-vpatch's kernel, which reads at memory bandwidth (default true; false: PETSc's own, see src/sys/cuda/vecmdot.cu)
. -dm_qbox_vec_aypx <bool>    - `VecAYPX()` of the CUDA global vectors and their duplicates (`MatResidual()`, Richardson's residual) in one pass by petsc-vpatch's kernel (default true; false: PETSc's own, two passes, see src/sys/cuda/vecaypx.cu)
. -dm_qbox_vec_long <bool>    - CUDA vectors: the operations PETSc's CUDA vectors pass to cuBLAS with a 32-bit length (`VecAXPY()`, `VecNorm()`, `VecDot()`, ...) and `VecMAXPY()` by petsc-vpatch's kernels with 64-bit lengths on every vector (default false: only where a rank holds more than 2^31 - 1 values, which they make possible; see src/sys/cuda/veclong.cu)
. -dm_qbox_fused_residual <bool> - one rank, CUDA vectors: `MatResidual()` of the matrix-free operator (PCMG's residual on every level, PCVPATCH's for each color on mapped cells) as r = b - A x in the operator's own kernel (Cartesian: one pass over x and b; mapped: the kernel adds -K x into a copy of b), instead of `MatMult()` and `VecAYPX()` (default true; not for a shifted operator, a mapped one with a mass term, or several ranks, where `MatMult()` and `VecAYPX()` run)
. -dm_qbox_dg <bool>          - the discontinuous Q_k space (SIPG) instead of the continuous one (`DMQBoxSetDiscontinuous()`; CPU and CUDA kernels)
. -dm_qbox_dg_penalty <C>     - its penalty factor: sigma = C k (k+1) / h (default 2)
. -dm_qbox_gather <bool>      - several ranks: `DMCoarsen()` gathers the coarse level onto fewer ranks where a process's cells can no longer be halved (or the level is small, -dm_qbox_gather_cells), in stages down to rank 0, so that the hierarchy is as deep as on one rank (default true; false: the hierarchy stops there)
. -dm_qbox_gather_stage <f>   - each gathering coarsening divides the ranks that own cells by about f (default 8; 0: onto rank 0 at once)
. -dm_qbox_gather_cells <n>   - ... and gathers it once it would have fewer than n cells in all (default -1: 2^21 / k^dim, a coarse level of about 2M nodes, 32^3 cells of Q_3 and 16^3 of Q_7: below that, on 2 GPUs, the exchanges of a level cost more than its work, and the transfer into the gathered level moves the values of its fine level, which this keeps below about 16M, bench/RESULTS.md; a total, not a count per process, so that the gathered level stays small for one GPU on any number of them; 0: only where it must)
. -dm_qbox_procs <px,py[,pz]> - several ranks: the process grid (its product the process count). Default: slabs of the slowest direction (1,1,p) where each process gets at least 16 cells along it and -dm_qbox_ghosted_vectors is on (global vectors inside ghosted buffers: no copies to local vectors; 17-25% faster on 4 GPUs than 1,2,2), else the grid of least interface area
. -dm_qbox_ghosted_vectors <bool> - several ranks whose partition cuts only the slowest direction (slabs, the default for 2 and 3 ranks on a cube): each global vector keeps its values inside a buffer of the rank's ghosted box, and the operator, the transfers and the smoother work on it, exchanging the ghost layers only (default true; false: copies to and from local vectors)
. -dm_qbox_exchange_device <bool> - several ranks on CUDA vectors: the exchanges hand device buffers to MPI, after a probe that falls back to host staging if MPI does not move device memory (default `-vpatch_exchange_device`, false unless set; for an MPI that moves device memory point to point but fails PETSc's `-use_gpu_aware_mpi` check, e.g. Open MPI with `--mca pml ucx` over a CUDA-enabled UCX)
. -dm_qbox_precision <double,single> - CUDA arithmetic of this level's operator and of the transfers to its refinement (default double)
. -dm_qbox_mg_precision <double,single> - the same for the levels created by `DMCoarsen()` (mixed precision multigrid: single)
. -dm_qbox_mapping <none,shell,deformed> - map the box onto a curved domain (isoparametric Q_k geometry; `DMQBoxSetMapping()` for a map of your own)
. -dm_qbox_shell_radii <r0,r1> - radii of the shell (default 0.5, 1)
. -dm_qbox_deform_amplitude <A> - amplitude of the deformed box (default 0.1)
. -dm_qbox_coefficient <one,oscillatory> - the coefficient a of -div(a grad u) (`DMQBoxSetCoefficient()` for one of your own)
- -dm_qbox_coefficient_contrast <c> - c of the oscillatory coefficient 1 + c prod_e cos^2(2 pi x_e + 0.1 e) (default 1e6)

  Level: beginner

.seealso: `DMQBoxCreate()`, `DMType`, `DMDA`
M*/
PetscErrorCode DMCreate_QBox(DM dm)
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(PetscNew(&q));
  dm->data           = q;
  q->dim             = 2;
  q->degree          = 1;
  q->storecoords     = PETSC_FALSE;             /* see -dm_qbox_coordinates */
  q->vecmdot         = PETSC_TRUE;              /* see -dm_qbox_vec_mdot */
  q->vecaypx         = PETSC_TRUE;              /* see -dm_qbox_vec_aypx */
  q->fusedres        = PETSC_TRUE;              /* see -dm_qbox_fused_residual */
  q->ghostedvecs     = PETSC_TRUE;              /* see -dm_qbox_ghosted_vectors */
  q->gather          = PETSC_TRUE;              /* see -dm_qbox_gather */
  q->exchdevice      = VPExchangeDeviceDefault; /* see -dm_qbox_exchange_device */
  q->gathercells     = -1;                      /* see -dm_qbox_gather_cells: 2^21 / k^dim */
  q->gatherstage     = 8;                       /* see -dm_qbox_gather_stage */
  q->dgpenalty       = 2.0;                     /* see -dm_qbox_dg_penalty */
  q->radii[0]        = 0.5;                     /* see -dm_qbox_shell_radii */
  q->radii[1]        = 1.0;
  q->amplitude       = 0.1;        /* see -dm_qbox_deform_amplitude */
  q->contrast        = 1e6;        /* see -dm_qbox_coefficient_contrast */
  q->split           = PETSC_TRUE; /* see -dm_qbox_geometry_split */
  q->splitchunk      = 1024;       /* see -dm_qbox_geometry_split_chunk */
  q->chunk           = MPI_DATATYPE_NULL;
  q->opweights.mass  = 0.0; /* see -dm_qbox_operator_mass: DMCreateMatrix() gives the Laplacian */
  q->opweights.stiff = 1.0;
  for (PetscInt d = 0; d < 3; d++) {
    q->cells[d] = 1;
    q->lower[d] = 0.0;
    q->upper[d] = 1.0;
  }
  PetscCall(DMSetDimension(dm, 2));
  PetscCall(DMSetMatType(dm, MATSHELL));
  dm->ops->view                    = DMView_QBox;
  dm->ops->setfromoptions          = DMSetFromOptions_QBox;
  dm->ops->setup                   = DMSetUp_QBox;
  dm->ops->destroy                 = DMDestroy_QBox;
  dm->ops->createglobalvector      = DMCreateGlobalVector_QBox;
  dm->ops->createlocalvector       = DMCreateLocalVector_QBox;
  dm->ops->globaltolocalbegin      = DMGlobalToLocalBegin_QBox;
  dm->ops->globaltolocalend        = DMGlobalToLocalEnd_QBox;
  dm->ops->localtoglobalbegin      = DMLocalToGlobalBegin_QBox;
  dm->ops->localtoglobalend        = DMLocalToGlobalEnd_QBox;
  dm->ops->getlocaltoglobalmapping = DMGetLocalToGlobalMapping_QBox;
  dm->ops->creatematrix            = DMCreateMatrix_QBox;
  dm->ops->createmassmatrix        = DMCreateMassMatrix_QBox;
  dm->ops->createmassmatrixlumped  = DMCreateMassMatrixLumped_QBox;
  dm->ops->coarsen                 = DMCoarsen_QBox;
  dm->ops->refine                  = DMRefine_QBox;
  dm->ops->createinterpolation     = DMCreateInterpolation_QBox;
  PetscFunctionReturn(PETSC_SUCCESS);
}
