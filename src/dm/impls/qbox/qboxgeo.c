/*
  DMQBOX geometry and coefficient: the operator -div(a grad u) on the image of the box under a smooth map.

  The geometry is isoparametric: on each cell the map is interpolated by Q_k at the cell's nodes, so the Jacobian J at
  a point of the reference cell [0,1]^d is the sum factorization of the nodal coordinates with the basis derivatives.
  The operator's kernels (src/mat/impls/laplacian/) read, per owned cell and Gauss point (k+1 per direction), the
  symmetric factor G = w a det(J) J^-1 J^-T, computed once (DMQBoxGetGeometry_Private()): on the host, and on the GPU
  for CUDA vectors, where the GPU computes them itself for a built-in map and coefficient (cuda/qboxgeo.cu; the host
  copy is then made only where a host computation needs it). Without a map and with a = 1 none of this exists: the Cartesian fast path runs.

  Built-in maps (unit-cube coordinates s of the box): a panel of the spherical shell r0 < |x| < r1 (3D: the cubed-sphere
  panel around the z axis, 2D: the quarter annulus around the y axis), and a deformed box. Built-in coefficient: the
  positive variant of Kronbichler et al.'s, a = 1 + c prod_e cos^2(2 pi x_e + 0.1 e).
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscvpatch/private/vpcontract.h>
#include <petscvpatch/private/vpgeo.h>

const char *const DMQBoxMappingTypes[]     = {"none", "shell", "deformed", "user", "DMQBoxMappingType", "DMQBOX_MAPPING_", NULL};
const char *const DMQBoxCoefficientTypes[] = {"one", "oscillatory", "user", "DMQBoxCoefficientType", "DMQBOX_COEFFICIENT_", NULL};

/* the built-in callbacks: the formulas of vpgeo.h with this DM's parameters */
static PetscErrorCode MapShell(PetscInt dim, const PetscReal X[], PetscReal x[], void *ctx)
{
  const DM_QBox *q = (const DM_QBox *)ctx;

  PetscFunctionBegin;
  VPGeoMapShell((int)dim, q->lower, q->upper, q->radii[0], q->radii[1], X, x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MapDeformed(PetscInt dim, const PetscReal X[], PetscReal x[], void *ctx)
{
  const DM_QBox *q = (const DM_QBox *)ctx;

  PetscFunctionBegin;
  VPGeoMapDeformed((int)dim, q->lower, q->upper, q->amplitude, X, x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CoefficientOscillatory(PetscInt dim, const PetscReal x[], PetscReal *a, void *ctx)
{
  const DM_QBox *q = (const DM_QBox *)ctx;

  PetscFunctionBegin;
  *a = VPGeoOscillatory((int)dim, q->contrast, x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMQBoxCheckUnset(DM dm, const char caller[])
{
  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, caller));
  PetscCheck(!dm->setupcalled, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "%s(): the geometry and coefficient of a DMQBOX are set before DMSetUp()", caller);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMQBoxSetMapping - Maps the box of a `DMQBOX` onto a curved domain: the operator becomes -div(a grad u) there

  Logically Collective

  Input Parameters:
+ dm  - the `DMQBOX`, not yet set up
. map - the map from box points to physical points (the same on every process), or `NULL` for the box itself
- ctx - its context

  Level: intermediate

  Notes:
  The geometry is isoparametric: Q_k interpolation of the map at each cell's nodes. The map must keep every cell's
  orientation (det J > 0); `DMCreateMatrix()` stops with an error naming the first cell where it does not.
  The levels made by `DMCoarsen()` and `DMRefine()` take the same map. `DMQBoxComputeRHS()`, `DMQBoxComputeError()`,
  `DMQBoxProjectFunction()` and the coefficient see physical points.

.seealso: `DMQBOX`, `DMQBoxSetMappingType()`, `DMQBoxSetCoefficient()`, `DMQBoxMapPoint()`
@*/
PetscErrorCode DMQBoxSetMapping(DM dm, DMQBoxMapping map, void *ctx)
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckUnset(dm, "DMQBoxSetMapping"));
  q          = (DM_QBox *)dm->data;
  q->maptype = map ? DMQBOX_MAPPING_USER : DMQBOX_MAPPING_NONE;
  q->map     = map;
  q->mapctx  = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the callback and context of a built-in map or coefficient (they read this DM's parameters) */
static void DMQBoxSetBuiltins(DM_QBox *q)
{
  if (q->maptype == DMQBOX_MAPPING_SHELL || q->maptype == DMQBOX_MAPPING_DEFORMED) {
    q->map    = q->maptype == DMQBOX_MAPPING_SHELL ? MapShell : MapDeformed;
    q->mapctx = q;
  } else if (q->maptype == DMQBOX_MAPPING_NONE) {
    q->map    = NULL;
    q->mapctx = NULL;
  }
  if (q->coeftype == DMQBOX_COEFFICIENT_OSCILLATORY) {
    q->coef    = CoefficientOscillatory;
    q->coefctx = q;
  } else if (q->coeftype == DMQBOX_COEFFICIENT_ONE) {
    q->coef    = NULL;
    q->coefctx = NULL;
  }
}

/*@
  DMQBoxSetMappingType - Chooses a built-in map of the box of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm   - the `DMQBOX`, not yet set up
- type - `DMQBOX_MAPPING_NONE`, `DMQBOX_MAPPING_SHELL` or `DMQBOX_MAPPING_DEFORMED` (`DMQBOX_MAPPING_USER`: use `DMQBoxSetMapping()`)

  Options Database Keys:
+ -dm_qbox_mapping <none,shell,deformed> - the map
. -dm_qbox_shell_radii <r0,r1>           - the shell's radii (default 0.5, 1)
- -dm_qbox_deform_amplitude <A>          - the deformed box's amplitude (default 0.1)

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxMappingType`, `DMQBoxSetMapping()`
@*/
PetscErrorCode DMQBoxSetMappingType(DM dm, DMQBoxMappingType type)
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckUnset(dm, "DMQBoxSetMappingType"));
  q = (DM_QBox *)dm->data;
  PetscCheck(type != DMQBOX_MAPPING_USER || q->maptype == DMQBOX_MAPPING_USER, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "DMQBoxSetMappingType(): give a map of your own with DMQBoxSetMapping()");
  q->maptype = type;
  DMQBoxSetBuiltins(q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetMappingType - Gets the map of the box of a `DMQBOX`

  Not Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameter:
. type - `DMQBOX_MAPPING_NONE` (the Cartesian box), `DMQBOX_MAPPING_SHELL`, `DMQBOX_MAPPING_DEFORMED` or `DMQBOX_MAPPING_USER`

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxSetMappingType()`, `DMQBoxSetMapping()`
@*/
PetscErrorCode DMQBoxGetMappingType(DM dm, DMQBoxMappingType *type)
{
  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxGetMappingType"));
  PetscAssertPointer(type, 2);
  *type = ((DM_QBox *)dm->data)->maptype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxGetCoefficientType - Gets the coefficient of the operator -div(a grad u) of a `DMQBOX`

  Not Collective

  Input Parameter:
. dm - the `DMQBOX`

  Output Parameter:
. type - `DMQBOX_COEFFICIENT_ONE` (a = 1), `DMQBOX_COEFFICIENT_OSCILLATORY` or `DMQBOX_COEFFICIENT_USER`

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxSetCoefficientType()`, `DMQBoxSetCoefficient()`
@*/
PetscErrorCode DMQBoxGetCoefficientType(DM dm, DMQBoxCoefficientType *type)
{
  PetscFunctionBegin;
  PetscCall(DMQBoxCheckSetter_Private(dm, "DMQBoxGetCoefficientType"));
  PetscAssertPointer(type, 2);
  *type = ((DM_QBox *)dm->data)->coeftype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMQBoxSetCoefficient - Sets the coefficient a(x) of the operator -div(a grad u) of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm   - the `DMQBOX`, not yet set up
. coef - a(x) at physical points (positive and finite; the same on every process), or `NULL` for a = 1
- ctx  - its context

  Level: intermediate

  Note:
  It is evaluated once per quadrature point when the operator is made; `DMCreateMatrix()` stops with an error naming the
  cell where it is not positive or not finite. The levels made by `DMCoarsen()` and `DMRefine()` take it too.

.seealso: `DMQBOX`, `DMQBoxSetCoefficientType()`, `DMQBoxSetMapping()`
@*/
PetscErrorCode DMQBoxSetCoefficient(DM dm, DMQBoxCoefficient coef, void *ctx)
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckUnset(dm, "DMQBoxSetCoefficient"));
  q           = (DM_QBox *)dm->data;
  q->coeftype = coef ? DMQBOX_COEFFICIENT_USER : DMQBOX_COEFFICIENT_ONE;
  q->coef     = coef;
  q->coefctx  = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxSetCoefficientType - Chooses a built-in coefficient of a `DMQBOX`

  Logically Collective

  Input Parameters:
+ dm   - the `DMQBOX`, not yet set up
- type - `DMQBOX_COEFFICIENT_ONE` or `DMQBOX_COEFFICIENT_OSCILLATORY` (`DMQBOX_COEFFICIENT_USER`: use `DMQBoxSetCoefficient()`)

  Options Database Keys:
+ -dm_qbox_coefficient <one,oscillatory> - the coefficient
- -dm_qbox_coefficient_contrast <c>      - c of the oscillatory coefficient (default 1e6)

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxCoefficientType`, `DMQBoxSetCoefficient()`
@*/
PetscErrorCode DMQBoxSetCoefficientType(DM dm, DMQBoxCoefficientType type)
{
  DM_QBox *q;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckUnset(dm, "DMQBoxSetCoefficientType"));
  q = (DM_QBox *)dm->data;
  PetscCheck(type != DMQBOX_COEFFICIENT_USER || q->coeftype == DMQBOX_COEFFICIENT_USER, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "DMQBoxSetCoefficientType(): give a coefficient of your own with DMQBoxSetCoefficient()");
  q->coeftype = type;
  DMQBoxSetBuiltins(q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxMapPoint - The physical point of a point of the box of a `DMQBOX` (the map itself, not its Q_k interpolant)

  Not Collective

  Input Parameters:
+ dm - the `DMQBOX`
- X  - a point of the box

  Output Parameter:
. x - its image (X itself without a map)

  Level: intermediate

.seealso: `DMQBOX`, `DMQBoxSetMapping()`
@*/
PetscErrorCode DMQBoxMapPoint(DM dm, const PetscReal X[], PetscReal x[])
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscValidHeaderSpecificType(dm, DM_CLASSID, 1, DMQBOX);
  if (q->map)
    PetscCall(q->map(q->dim, X, x, q->mapctx));
  else
    for (PetscInt d = 0; d < q->dim; d++) x[d] = X[d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxSetFromOptions_Geometry(DM dm, PetscOptionItems PetscOptionsObject)
{
  DM_QBox  *q = (DM_QBox *)dm->data;
  PetscEnum e;
  PetscInt  n = 2;
  PetscBool flg;

  PetscFunctionBegin;
  e = (PetscEnum)q->maptype;
  PetscCall(PetscOptionsEnum("-dm_qbox_mapping", "Map of the box: none, shell (a panel of the spherical shell), deformed", "DMQBoxSetMappingType", DMQBoxMappingTypes, e, &e, &flg));
  if (flg) {
    PetscCheck((DMQBoxMappingType)e != DMQBOX_MAPPING_USER, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "-dm_qbox_mapping user: give the map with DMQBoxSetMapping() in the program");
    q->maptype = (DMQBoxMappingType)e;
  }
  PetscCall(VPOptionsRealArray("-dm_qbox_shell_radii", "Inner and outer radius of the shell (-dm_qbox_mapping shell)", "DMQBoxSetMappingType", q->radii, &n, &flg));
  PetscCheck(!flg || (n == 2 && q->radii[0] > 0 && q->radii[1] > q->radii[0]), PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_qbox_shell_radii needs two radii 0 < r0 < r1");
  PetscCall(VPOptionsReal("-dm_qbox_deform_amplitude", "Amplitude of the deformed box (-dm_qbox_mapping deformed)", "DMQBoxSetMappingType", q->amplitude, &q->amplitude, NULL));
  e = (PetscEnum)q->coeftype;
  PetscCall(PetscOptionsEnum("-dm_qbox_coefficient", "Coefficient a of -div(a grad u): one, oscillatory (1 + c prod cos^2(2 pi x_e + 0.1 e))", "DMQBoxSetCoefficientType", DMQBoxCoefficientTypes, e, &e, &flg));
  if (flg) {
    PetscCheck((DMQBoxCoefficientType)e != DMQBOX_COEFFICIENT_USER, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "-dm_qbox_coefficient user: give the coefficient with DMQBoxSetCoefficient() in the program");
    q->coeftype = (DMQBoxCoefficientType)e;
  }
  PetscCall(VPOptionsReal("-dm_qbox_coefficient_contrast", "Contrast c of the oscillatory coefficient", "DMQBoxSetCoefficientType", q->contrast, &q->contrast, NULL));
  PetscCheck(q->contrast >= 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_qbox_coefficient_contrast must be >= 0 (the coefficient must stay positive), not %g", (double)q->contrast);
  PetscCall(PetscOptionsBool("-dm_qbox_geometry_onthefly", "CUDA operator, 3D, built-in map and coefficient: compute the geometric factors in the kernel instead of reading the stored ones", "DMQBOX", q->geofly, &q->geofly, NULL));
  PetscCall(PetscOptionsBool(
      "-dm_qbox_geometry_split",
      "CUDA, 3D, stored factors: where single-precision kernels ask for the factors in float, keep the double ones as float high and low halves (8 bytes per factor instead of 12; the double operator reads their sum, the factors to 2^-48)", "DMQBOX",
      q->split, &q->split, NULL));
  PetscCall(PetscOptionsInt("-dm_qbox_geometry_split_chunk", "The split's chunk of low halves, MB, at least (at most 16 chunks): the split holds one at once besides the factors and their float copy", "DMQBOX", q->splitchunk, &q->splitchunk, NULL));
  PetscCheck(q->splitchunk >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "-dm_qbox_geometry_split_chunk must be at least 1 (MB), not %" PetscInt_FMT, q->splitchunk);
  DMQBoxSetBuiltins(q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a level made by DMCoarsen()/DMRefine() takes the map and the coefficient of dm */
PetscErrorCode DMQBoxCopyGeometry_Private(DM dm, DM dmn)
{
  DM_QBox *q = (DM_QBox *)dm->data, *qn = (DM_QBox *)dmn->data;

  PetscFunctionBegin;
  qn->maptype    = q->maptype;
  qn->map        = q->map;
  qn->mapctx     = q->mapctx;
  qn->coeftype   = q->coeftype;
  qn->coef       = q->coef;
  qn->coefctx    = q->coefctx;
  qn->radii[0]   = q->radii[0];
  qn->radii[1]   = q->radii[1];
  qn->amplitude  = q->amplitude;
  qn->contrast   = q->contrast;
  qn->geofly     = q->geofly;
  qn->split      = q->split;
  qn->splitchunk = q->splitchunk;
  DMQBoxSetBuiltins(qn);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxViewGeometry_Private(DM dm, PetscViewer viewer)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  char     map[128], coef[128];

  PetscFunctionBegin;
  if (!DMQBoxIsGeneral_Private(q)) PetscFunctionReturn(PETSC_SUCCESS);
  if (q->maptype == DMQBOX_MAPPING_SHELL)
    PetscCall(PetscSNPrintf(map, sizeof(map), "shell (radii %g, %g)", (double)q->radii[0], (double)q->radii[1]));
  else if (q->maptype == DMQBOX_MAPPING_DEFORMED)
    PetscCall(PetscSNPrintf(map, sizeof(map), "deformed (amplitude %g)", (double)q->amplitude));
  else
    PetscCall(PetscSNPrintf(map, sizeof(map), "%s", DMQBoxMappingTypes[q->maptype]));
  if (q->coeftype == DMQBOX_COEFFICIENT_OSCILLATORY)
    PetscCall(PetscSNPrintf(coef, sizeof(coef), "1 + %g prod cos^2(2 pi x_e + 0.1 e)", (double)q->contrast));
  else
    PetscCall(PetscSNPrintf(coef, sizeof(coef), "%s", DMQBoxCoefficientTypes[q->coeftype]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "operator -div(a grad u), isoparametric Q_%" PetscInt_FMT " geometry: map %s, coefficient %s\n", q->degree, map, coef));
  if (q->geofly) PetscCall(PetscViewerASCIIPrintf(viewer, "geometric factors: computed on the fly by the CUDA operator (3D, built-in map and coefficient)\n"));
  if (q->d_geolo) PetscCall(PetscViewerASCIIPrintf(viewer, "geometric factors on the GPU: float high and low halves (the double operator reads their sum)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxCellGeometry_Private - Physical points and Jacobians of the isoparametric map of one cell at nq^d points

  Input: c the global cell coordinates; B, Dq the nq x (k+1) values and derivatives of the 1D basis at the points of [0,1].
  Output: x[a nq^d + q] the physical points, J[(a d + b) nq^d + q] = d x_a / d xhat_b (xhat in the reference cell [0,1]^d).
  work: (d + 2) m^d reals, m = max(k + 1, nq).
*/
PetscErrorCode DMQBoxCellGeometry_Private(DM dm, const PetscInt c[3], PetscInt nq, const PetscReal *B, const PetscReal *Dq, PetscReal *x, PetscReal *J, PetscReal *work)
{
  DM_QBox   *q   = (DM_QBox *)dm->data;
  PetscInt   dim = q->dim, k = q->degree, n = k + 1, nz = dim == 3 ? n : 1, nd = n * n * nz, m = PetscMax(n, nq), md = dim == 3 ? m * m * m : m * m;
  PetscInt   nqz = dim == 3 ? nq : 1, nqd = nq * nq * nqz, e0[3] = {n, n, nz}, e1[3] = {nq, n, nz}, e2[3] = {nq, nq, nz};
  PetscReal *xn = work, *t1 = work + dim * md, *t2 = work + (dim + 1) * md;

  PetscFunctionBegin;
  for (PetscInt iz = 0, e = 0; iz < nz; iz++) /* the map at the cell's nodes */
    for (PetscInt iy = 0; iy < n; iy++)
      for (PetscInt ix = 0; ix < n; ix++, e++) {
        const PetscInt s    = q->dg ? k + 1 : k; /* the discontinuous space repeats the cells' end nodes */
        PetscReal      X[3] = {q->coords1d[0][c[0] * s + ix], q->coords1d[1][c[1] * s + iy], dim == 3 ? q->coords1d[2][c[2] * s + iz] : 0.0}, y[3];
        PetscCall(DMQBoxMapPoint(dm, X, y));
        for (PetscInt a = 0; a < dim; a++) xn[a * nd + e] = y[a];
      }
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt b = -1; b < dim; b++) { /* b = -1: the point, else the derivative along b */
      PetscReal *out = b < 0 ? x + a * nqd : J + (a * dim + b) * nqd;
      VPContract(e0, 0, nq, b == 0 ? Dq : B, PETSC_FALSE, xn + a * nd, t1);
      if (dim == 2)
        VPContract(e1, 1, nq, b == 1 ? Dq : B, PETSC_FALSE, t1, out);
      else {
        VPContract(e1, 1, nq, b == 1 ? Dq : B, PETSC_FALSE, t1, t2);
        VPContract(e2, 2, nq, b == 2 ? Dq : B, PETSC_FALSE, t2, out);
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxCellFactors_Private - G = w a det(J) J^-1 J^-T = w a adj(J^T J) / det(J) at the k+1 Gauss points per direction of
  one cell (G[m (k+1)^d + q]); work: (2 d + d^2 + 2) (k+1)^d reals. Where det J <= 0 or a is not positive and finite, msg
  (of length len) names the cell and the factors are not all set; else msg is empty. The callbacks' own errors return.
*/
PetscErrorCode DMQBoxCellFactors_Private(DM dm, const PetscInt c[3], PetscReal *G, PetscReal *work, char msg[], size_t len)
{
  DM_QBox         *q   = (DM_QBox *)dm->data;
  const VPBasis1D *b   = &q->basis;
  PetscInt         dim = q->dim, n = q->degree + 1, nd = dim == 3 ? n * n * n : n * n, ncomp = VPGeometryComponents(dim);
  PetscReal       *x = work, *J = work + dim * nd, *w = work + (dim + dim * dim) * nd;

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCall(DMQBoxCellGeometry_Private(dm, c, n, b->S, b->D, x, J, w));
  for (PetscInt qz = 0, qi = 0; qz < (dim == 3 ? n : 1); qz++)
    for (PetscInt qy = 0; qy < n; qy++)
      for (PetscInt qx = 0; qx < n; qx++, qi++) {
        PetscReal Jq[9], xq[3] = {0, 0, 0}, adj[6], det, a = 1, wq = b->qwts[qx] * b->qwts[qy] * (dim == 3 ? b->qwts[qz] : 1.0);
        for (PetscInt i = 0; i < dim * dim; i++) Jq[i] = J[i * nd + qi];
        for (PetscInt d = 0; d < dim; d++) xq[d] = x[d * nd + qi];
        det = VPGeoDetAdj((int)dim, Jq, adj);
        if (!(det > 0) || PetscIsInfReal(det)) {
          PetscCall(PetscSNPrintf(msg, len,
                                  "DMQBOX mapping: det J = %g at the point (%g, %g, %g) of cell (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT
                                  "): the map inverts, degenerates or is not finite there; change the map (DMQBoxSetMapping(), -dm_qbox_mapping, -dm_qbox_deform_amplitude)",
                                  (double)det, (double)xq[0], (double)xq[1], (double)xq[2], c[0], c[1], c[2]));
          PetscFunctionReturn(PETSC_SUCCESS);
        }
        if (q->coef) PetscCall(q->coef(dim, xq, &a, q->coefctx));
        if (!(a > 0) || PetscIsInfReal(a)) {
          PetscCall(PetscSNPrintf(
              msg, len, "DMQBOX coefficient a = %g at the point (%g, %g, %g) of cell (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "): it must be positive and finite; change the coefficient (DMQBoxSetCoefficient(), -dm_qbox_coefficient)",
              (double)a, (double)xq[0], (double)xq[1], (double)xq[2], c[0], c[1], c[2]));
          PetscFunctionReturn(PETSC_SUCCESS);
        }
        for (PetscInt m = 0; m < ncomp; m++) G[m * nd + qi] = wq * a * adj[m] / det;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxCellMassFactors_Private - m = w det(J) at the k+1 Gauss points per direction of one cell (m[q]): the mass matrix
  on the mapped cell is sum_q m_q phi(x_q) phi(x_q)^T. work: (2 d + d^2 + 2) (k+1)^d reals. The map was checked with the
  stiffness factors (DMQBoxCellFactors_Private()), which every mapped operator computes first.
*/
PetscErrorCode DMQBoxCellMassFactors_Private(DM dm, const PetscInt c[3], PetscReal *m, PetscReal *work)
{
  DM_QBox         *q   = (DM_QBox *)dm->data;
  const VPBasis1D *b   = &q->basis;
  PetscInt         dim = q->dim, n = q->degree + 1, nd = dim == 3 ? n * n * n : n * n;
  PetscReal       *x = work, *J = work + dim * nd, *w = work + (dim + dim * dim) * nd;

  PetscFunctionBegin;
  PetscCall(DMQBoxCellGeometry_Private(dm, c, n, b->S, b->D, x, J, w));
  for (PetscInt qz = 0, qi = 0; qz < (dim == 3 ? n : 1); qz++)
    for (PetscInt qy = 0; qy < n; qy++)
      for (PetscInt qx = 0; qx < n; qx++, qi++) {
        PetscReal Jq[9], adj[6];
        for (PetscInt i = 0; i < dim * dim; i++) Jq[i] = J[i * nd + qi];
        m[qi] = b->qwts[qx] * b->qwts[qy] * (dim == 3 ? b->qwts[qz] : 1.0) * VPGeoDetAdj((int)dim, Jq, adj);
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mass factors of every owned cell (DMQBoxCellMassFactors_Private(), [cell][point] as the stiffness factors), made on
   first use by a mass term on a mapped box: with CUDA vectors and a built-in map by the GPU (the host copy, where asked,
   a download), else on the host (the device copy, where asked, an upload) */
PetscErrorCode DMQBoxGetMassGeometry_Private(DM dm, const PetscReal **mgeo, const PetscReal **d_mgeo)
{
  DM_QBox  *q  = (DM_QBox *)dm->data;
  VPGrid   *g  = &q->grid;
  PetscInt  nd = VPGridCellNodes(g), ncells = g->cm[0] * g->cm[1] * g->cm[2];
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCheck(DMQBoxIsGeneral_Private(q), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX: mass factors of a Cartesian mesh with a = 1 are not stored");
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
#if defined(PETSC_HAVE_CUDA)
  if (cuda && !q->d_mgeo && !q->mgeo && q->maptype != DMQBOX_MAPPING_USER && q->coeftype != DMQBOX_COEFFICIENT_USER) {
    VPGeometryParams p;
    PetscInt         bad;
    PetscCall(PetscLogEventBegin(VPATCH_Geometry, dm, 0, 0, 0));
    PetscCall(DMQBoxGeometryParams_Private(dm, &p));
    PetscCall(VPDeviceAlloc_Private((size_t)PetscMax(ncells * nd, 1), &q->d_mgeo));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPGeometryBuiltin_CUDA(g, &p, NULL, q->d_mgeo, &bad));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX: the mass factors of an owned cell are not valid, though its stiffness factors were");
    PetscCall(PetscLogEventEnd(VPATCH_Geometry, dm, 0, 0, 0));
  }
  if (mgeo && q->d_mgeo && !q->mgeo) {
    PetscCall(PetscMalloc1(PetscMax(ncells * nd, 1), &q->mgeo));
    PetscCall(VPDeviceToHost_Private(q->d_mgeo, (size_t)ncells * (size_t)nd, q->mgeo));
  }
#else
  (void)cuda;
#endif
  if (!q->mgeo && (mgeo || !q->d_mgeo)) {
    PetscReal *work;
    PetscCall(PetscLogEventBegin(VPATCH_Geometry, dm, 0, 0, 0));
    PetscCall(PetscMalloc1(PetscMax(ncells * nd, 1), &q->mgeo));
    PetscCall(PetscMalloc1((2 * g->dim + g->dim * g->dim + 2) * nd, &work));
    for (PetscInt cz = 0, i = 0; cz < g->cm[2]; cz++)
      for (PetscInt cy = 0; cy < g->cm[1]; cy++)
        for (PetscInt cx = 0; cx < g->cm[0]; cx++, i++) {
          PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->cs[2] + cz};
          PetscCall(DMQBoxCellMassFactors_Private(dm, c, q->mgeo + i * nd, work));
        }
    PetscCall(PetscFree(work));
    PetscCall(PetscLogFlops((PetscLogDouble)ncells * nd * (2.0 * g->dim * (g->dim + 1) * (g->k + 1) + 20)));
    PetscCall(PetscLogEventEnd(VPATCH_Geometry, dm, 0, 0, 0));
  }
  if (mgeo) *mgeo = q->mgeo;
  if (d_mgeo) {
    if (!q->d_mgeo) PetscCall(VPDeviceCopy_Private(q->mgeo, (size_t)ncells * (size_t)nd, &q->d_mgeo));
    *d_mgeo = q->d_mgeo;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a bad cell on one process (msg not empty there) stops every process, with the cell named by the process that owns it */
static PetscErrorCode DMQBoxGeometryCheck(DM dm, const char msg[])
{
  PetscMPIInt bad = msg[0] ? 1 : 0, anybad;

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)dm)));
  if (anybad) PetscCall(DMQBoxDestroyGeometry_Private(dm));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s", msg);
  PetscCheck(!anybad, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "DMQBOX: another process found a cell whose map or coefficient is not valid (its message names the cell)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* the built-in map and coefficient as the GPU kernels take them */
PetscErrorCode DMQBoxGeometryParams_Private(DM dm, VPGeometryParams *pp)
{
  DM_QBox         *q  = (DM_QBox *)dm->data;
  PetscInt         n1 = q->grid.k + 1;
  VPGeometryParams p;

  PetscFunctionBegin;
  PetscCheck(q->maptype != DMQBOX_MAPPING_USER && q->coeftype != DMQBOX_COEFFICIENT_USER, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMQBOX: the GPU evaluates the built-in maps and coefficients only, not callbacks");
  PetscCall(PetscMemzero(&p, sizeof(p)));
  p.maptype   = q->maptype;
  p.coeftype  = q->coeftype;
  p.radii[0]  = q->radii[0];
  p.radii[1]  = q->radii[1];
  p.amplitude = q->amplitude;
  p.contrast  = q->contrast;
  for (PetscInt d = 0; d < 3; d++) {
    p.lower[d] = q->lower[d];
    p.upper[d] = q->upper[d];
  }
  for (PetscInt i = 0; i < n1; i++) {
    p.nodes[i] = q->basis.nodes[i];
    p.w[i]     = q->basis.qwts[i];
  }
  for (PetscInt i = 0; i < n1 * n1; i++) {
    p.S[i] = q->basis.S[i];
    p.D[i] = q->basis.D[i];
  }
  *pp = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* d_geo for n factors, in chunks of twice the size of d_geolo's (DMQBoxGetGeometryFloat_Private()): at most
   VP_GEO_CHUNKS, each of d_geolo's at least -dm_qbox_geometry_split_chunk MB (1024). The split holds one chunk of
   d_geolo at once besides G and its float copy; the chunks' count hardly changes its time (at Q_3 111M 21 ms for 6
   levels with 16 chunks each, 20 ms with chunks of 1 GB or more: the passes over the memory and the allocations cost
   it, measured) */
#define VP_GEO_CHUNKS 16
static PetscErrorCode DMQBoxAllocDeviceGeometry(DM_QBox *q, size_t n)
{
  const size_t lo = n * sizeof(float), min = (size_t)q->splitchunk << 20;
  size_t       clo;

  PetscFunctionBegin;
  PetscCall(VPChunkedSize_Private(lo, (PetscInt)PetscMax(PetscMin(lo / min, (size_t)VP_GEO_CHUNKS), (size_t)1), &clo));
  PetscCall(VPChunkedReserve_Private(n * sizeof(PetscReal), 2 * clo, &q->cgeo));
  PetscCall(VPChunkedMap_Private(&q->cgeo, 0, q->cgeo.nc));
  q->d_geo = (PetscReal *)q->cgeo.ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the built-in map and coefficient on the GPU, straight into q->d_geo (cuda/qboxgeo.cu); a bad cell is named by the host
   computation of that cell */
static PetscErrorCode DMQBoxGeometryDevice(DM dm, PetscInt size)
{
  DM_QBox         *q = (DM_QBox *)dm->data;
  const VPGrid    *g = &q->grid;
  VPGeometryParams p;
  PetscInt         bad;
  char             msg[1024] = "";

  PetscFunctionBegin;
  PetscCall(DMQBoxGeometryParams_Private(dm, &p));
  PetscCall(DMQBoxAllocDeviceGeometry(q, (size_t)size));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(VPGeometryBuiltin_CUDA(g, &p, q->d_geo, NULL, &bad));
  PetscCall(PetscLogGpuTimeEnd());
  if (bad >= 0) {
    PetscInt   nd = VPGridCellNodes(g), c[3] = {g->cs[0] + bad % g->cm[0], g->cs[1] + (bad / g->cm[0]) % g->cm[1], g->cs[2] + bad / (g->cm[0] * g->cm[1])};
    PetscReal *G, *work;
    PetscCall(PetscMalloc2(VPGeometryComponents(g->dim) * nd, &G, (2 * g->dim + g->dim * g->dim + 2) * nd, &work));
    PetscCall(DMQBoxCellFactors_Private(dm, c, G, work, msg, sizeof(msg)));
    PetscCall(PetscFree2(G, work));
    if (!msg[0]) PetscCall(PetscSNPrintf(msg, sizeof(msg), "DMQBOX: the GPU found det J <= 0 or a coefficient that is not positive and finite in cell (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", c[0], c[1], c[2]));
  }
  PetscCall(DMQBoxGeometryCheck(dm, msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The factors of every owned cell, made on first use: on the host (geo), and on the GPU when d_geo is asked for, there
   computed by the GPU itself for a built-in map and coefficient, else copied from the host. Collective. */
PetscErrorCode DMQBoxGetGeometry_Private(DM dm, const PetscReal **geo, const PetscReal **d_geo)
{
  DM_QBox *q  = (DM_QBox *)dm->data;
  VPGrid  *g  = &q->grid;
  PetscInt nd = VPGridCellNodes(g), stride = VPGeometryComponents(g->dim) * nd, ncells = g->cm[0] * g->cm[1] * g->cm[2];

  PetscFunctionBegin;
  PetscCheck(DMQBoxIsGeneral_Private(q), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX: geometric factors of a Cartesian mesh with a = 1 are not stored");
#if defined(PETSC_HAVE_CUDA)
  if (geo && !q->geo && q->d_geolo) { /* split (DMQBoxGetGeometryFloat_Private()): the host copy joins the halves */
    PetscCall(PetscMalloc1(PetscMax(ncells * stride, 1), &q->geo));
    PetscCall(VPMappedJoinToHost_CUDA(q->d_geof, q->d_geolo, (size_t)ncells * (size_t)stride, q->geo));
  }
  if (d_geo && !q->d_geo && q->d_geolo) { /* split: the double array again (the halves' sum), the low halves freed */
    PetscCall(PetscLogEventBegin(VPATCH_GeometrySplit, dm, 0, 0, 0));
    PetscCall(DMQBoxAllocDeviceGeometry(q, (size_t)ncells * (size_t)stride));
    PetscCall(VPMappedJoin_CUDA(q->d_geof, q->d_geolo, (size_t)ncells * (size_t)stride, q->d_geo));
    PetscCall(VPChunkedFree_Private(&q->cglo));
    q->d_geolo = NULL;
    PetscCall(PetscLogEventEnd(VPATCH_GeometrySplit, dm, 0, 0, 0));
  }
  if (d_geo && !q->d_geo && !q->geo && q->maptype != DMQBOX_MAPPING_USER && q->coeftype != DMQBOX_COEFFICIENT_USER) {
    PetscCall(PetscLogEventBegin(VPATCH_Geometry, dm, 0, 0, 0));
    PetscCall(DMQBoxGeometryDevice(dm, ncells * stride));
    PetscCall(PetscLogGpuFlops((PetscLogDouble)ncells * nd * (2.0 * g->dim * (g->dim + 1) * nd + 60)));
    PetscCall(PetscLogEventEnd(VPATCH_Geometry, dm, 0, 0, 0));
  }
#endif
  if (geo && q->d_geo && !q->geo) {                                 /* computed by the GPU (and checked there): the host copy is a download */
    PetscCall(PetscMalloc1(PetscMax(ncells * stride, 1), &q->geo)); /* not NULL on a process with no cell: made once */
    PetscCall(VPDeviceToHost_Private(q->d_geo, (size_t)ncells * (size_t)stride, q->geo));
  }
  if ((geo || (d_geo && !q->d_geo)) && !q->geo) {
    PetscReal *work;
    char       msg[1024] = "";

    PetscCall(PetscLogEventBegin(VPATCH_Geometry, dm, 0, 0, 0));
    PetscCall(PetscMalloc1(PetscMax(ncells * stride, 1), &q->geo)); /* not NULL on a process with no cell: made once */
    PetscCall(PetscMalloc1((2 * g->dim + g->dim * g->dim + 2) * nd, &work));
    for (PetscInt cz = 0, i = 0; cz < g->cm[2] && !msg[0]; cz++)
      for (PetscInt cy = 0; cy < g->cm[1] && !msg[0]; cy++)
        for (PetscInt cx = 0; cx < g->cm[0] && !msg[0]; cx++, i++) {
          PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->cs[2] + cz};
          PetscCall(DMQBoxCellFactors_Private(dm, c, q->geo + i * stride, work, msg, sizeof(msg)));
        }
    PetscCall(PetscFree(work));
    PetscCall(DMQBoxGeometryCheck(dm, msg));
    PetscCall(PetscLogFlops((PetscLogDouble)ncells * nd * (2.0 * g->dim * (g->dim + 1) * (g->k + 1) + 40)));
    PetscCall(PetscLogEventEnd(VPATCH_Geometry, dm, 0, 0, 0));
  }
  if (geo) *geo = q->geo;
  if (d_geo) {
#if defined(PETSC_HAVE_CUDA)
    if (!q->d_geo) {
      PetscCall(DMQBoxAllocDeviceGeometry(q, (size_t)ncells * (size_t)stride));
      PetscCall(VPDeviceCopyTo_Private(q->geo, (size_t)ncells * (size_t)stride, q->d_geo));
    }
#else
    SETERRQ(PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
    *d_geo = q->d_geo;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factors in float on the GPU, for the single-precision kernels (half the bytes they read). In 3D, where the
   factors are stored (not computed on the fly), the double array is then split and freed: d_geof = (float) d_geo and
   d_geolo = (float) (d_geo - d_geof), whose sum the double-precision operator kernel reads (DMQBoxGetGeometryRef_Private())
   and which equals the factors to 2^-48 relative. So the mixed-precision cycle, which reads both, keeps 8 bytes per
   factor instead of 12; the single-precision kernels read the same floats as without the split. A later
   DMQBoxGetGeometry_Private() for the double array joins the halves back (and frees the low ones). */
PetscErrorCode DMQBoxGetGeometryFloat_Private(DM dm, const float **d_geof)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (!q->d_geof) {
    const PetscReal *d_geo;
    const VPGrid    *g = &q->grid;
    const size_t     n = (size_t)g->cm[0] * (size_t)g->cm[1] * (size_t)g->cm[2] * (size_t)(VPGeometryComponents(g->dim) * VPGridCellNodes(g));
    PetscCall(DMQBoxGetGeometry_Private(dm, NULL, &d_geo));
    if (g->dim == 3 && !q->geofly && q->split) { /* chunk by chunk, each of d_geo's released once read: the GPU never holds more than d_geo and d_geof, as without the split */
      PetscCall(PetscLogEventBegin(VPATCH_GeometrySplit, dm, 0, 0, 0));
      PetscCall(VPMappedFloatAlloc_CUDA(n, &q->d_geof));
      PetscCall(VPChunkedReserve_Private(n * sizeof(float), q->cgeo.chunk / 2, &q->cglo));
      PetscCheck(q->cglo.nc == q->cgeo.nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the split factors' chunks (%" PetscInt_FMT ") do not pair with the factors' (%" PetscInt_FMT ")", q->cglo.nc, q->cgeo.nc);
      for (PetscInt c = 0; c < q->cglo.nc; c++) {
        const size_t first = (size_t)c * (q->cglo.chunk / sizeof(float)), m = first < n ? PetscMin(n - first, q->cglo.chunk / sizeof(float)) : 0;
        PetscCall(VPChunkedMap_Private(&q->cglo, c, c + 1));
        PetscCall(VPMappedSplit_CUDA(d_geo, first, m, q->d_geof, (float *)q->cglo.ptr)); /* returns when the device is done */
        PetscCall(VPChunkedRelease_Private(&q->cgeo, c, c + 1));                         /* the same factors in double */
      }
      PetscCall(PetscInfo(dm, "%zu factors split into float halves in %" PetscInt_FMT " chunk(s) of %zu bytes of low halves\n", n, q->cglo.nc, q->cglo.chunk));
      PetscCall(VPChunkedFree_Private(&q->cgeo));
      q->d_geo   = NULL;
      q->d_geolo = (float *)q->cglo.ptr;
      PetscCall(PetscLogEventEnd(VPATCH_GeometrySplit, dm, 0, 0, 0));
    } else
      PetscCall(VPMappedToFloat_CUDA(d_geo, n, &q->d_geof));
  }
  *d_geof = q->d_geof;
#else
  *d_geof = NULL;
  SETERRQ(PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factors on the GPU for a kernel that reads either form (VPGeoRef): the split ones where the DM holds them (they
   stay split), else the double ones (made on first use) */
PetscErrorCode DMQBoxGetGeometryRef_Private(DM dm, VPGeoRef *ref)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(ref, sizeof(*ref)));
  if (q->d_geolo) {
    ref->hi = q->d_geof;
    ref->lo = q->d_geolo;
  } else
    PetscCall(DMQBoxGetGeometry_Private(dm, NULL, &ref->d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factors of the layer of cells below this rank's owned ones (VPLayerCellIndex(): the cells of its vertex
   patches it does not own), made on first use: on the GPU where a device copy is asked for first and the map and the
   coefficient are built in (the layer's parts as boxes of cells, VPLayerSlab()), else on the host (lgeo, then copied to
   the device); in double (d_lgeo) or float (d_lgeof) on request; NULL where the rank has no such layer (it starts the
   box in every direction). On the host, cell after cell, it would cost about 0.5 s of a 2-rank set-up at 111M unknowns. */
PetscErrorCode DMQBoxGetLayerGeometry_Private(DM dm, const PetscReal **lgeo, const PetscReal **d_lgeo, const float **d_lgeof)
{
  DM_QBox       *q  = (DM_QBox *)dm->data;
  const VPGrid  *g  = &q->grid;
  const PetscInt nd = VPGridCellNodes(g), stride = VPGeometryComponents(g->dim) * nd;
  const size_t   nl = !VPGridEmpty(g) ? (size_t)VPLayerCellIndex(g->cs, g->cm, NULL) : 0; /* a rank with no cell (a gathered level) has no patch */

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (nl && (d_lgeo || d_lgeof) && !q->d_lgeo && !q->lgeo && q->maptype != DMQBOX_MAPPING_USER && q->coeftype != DMQBOX_COEFFICIENT_USER) {
    VPGeometryParams p;
    PetscCall(PetscLogEventBegin(VPATCH_Geometry, dm, 0, 0, 0));
    PetscCall(DMQBoxGeometryParams_Private(dm, &p));
    PetscCall(VPDeviceAlloc_Private(nl * stride, &q->d_lgeo));
    PetscCall(PetscLogGpuTimeBegin());
    for (int s = 0; s < 3; s++) {
      VPGrid          gs = *g;
      PetscInt        bad;
      const long long o = VPLayerSlab(g->cs, g->cm, s, gs.cs, gs.cm);
      if (o < 0) continue;
      PetscCall(VPGeometryBuiltin_CUDA(&gs, &p, q->d_lgeo + (size_t)o * stride, NULL, &bad));
      PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "DMQBOX: det J <= 0 or a coefficient that is not positive and finite in cell (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") of another process", gs.cs[0] + bad % gs.cm[0],
                 gs.cs[1] + (bad / gs.cm[0]) % gs.cm[1], gs.cs[2] + bad / (gs.cm[0] * gs.cm[1]));
    }
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((PetscLogDouble)nl * nd * (2.0 * g->dim * (g->dim + 1) * nd + 60)));
    PetscCall(PetscLogEventEnd(VPATCH_Geometry, dm, 0, 0, 0));
  }
  if (lgeo && q->d_lgeo && !q->lgeo) { /* made by the GPU: the host copy is a download */
    PetscCall(PetscMalloc1(nl * stride, &q->lgeo));
    PetscCall(VPDeviceToHost_Private(q->d_lgeo, nl * stride, q->lgeo));
  }
#endif
  if (nl && !q->lgeo && (lgeo || !q->d_lgeo)) {
    PetscReal *work;
    char       msg[1024] = "";
    PetscInt   h[3];
    for (PetscInt d = 0; d < 3; d++) h[d] = g->cs[d] > 0;
    PetscCall(PetscLogEventBegin(VPATCH_Geometry, dm, 0, 0, 0));
    PetscCall(PetscMalloc1(nl * stride, &q->lgeo));
    PetscCall(PetscMalloc1((2 * g->dim + g->dim * g->dim + 2) * nd, &work));
    for (PetscInt cz = g->cs[2] - h[2]; cz < g->cs[2] + g->cm[2] && !msg[0]; cz++)
      for (PetscInt cy = g->cs[1] - h[1]; cy < g->cs[1] + g->cm[1] && !msg[0]; cy++)
        for (PetscInt cx = g->cs[0] - h[0]; cx < g->cs[0] + g->cm[0] && !msg[0]; cx++) {
          const int       ci[3] = {(int)cx, (int)cy, (int)cz};
          const PetscInt  c[3]  = {cx, cy, cz};
          const long long l     = VPLayerCellIndex(g->cs, g->cm, ci);
          if (l >= 0) PetscCall(DMQBoxCellFactors_Private(dm, c, q->lgeo + l * stride, work, msg, sizeof(msg)));
        }
    PetscCall(PetscFree(work));
    PetscCheck(!msg[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s", msg); /* the owner found it too */
    PetscCall(PetscLogFlops((PetscLogDouble)nl * nd * (2.0 * g->dim * (g->dim + 1) * (g->k + 1) + 40)));
    PetscCall(PetscLogEventEnd(VPATCH_Geometry, dm, 0, 0, 0));
  }
  if (lgeo) *lgeo = q->lgeo;
#if defined(PETSC_HAVE_CUDA)
  if ((d_lgeo || d_lgeof) && nl && !q->d_lgeo) PetscCall(VPDeviceCopy_Private(q->lgeo, nl * stride, &q->d_lgeo));
  if (d_lgeof && nl && !q->d_lgeof) PetscCall(VPMappedToFloat_CUDA(q->d_lgeo, nl * stride, &q->d_lgeof));
  if (d_lgeo) *d_lgeo = q->d_lgeo;
  if (d_lgeof) *d_lgeof = q->d_lgeof;
#else
  PetscCheck(!d_lgeo && !d_lgeof, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxDestroyGeometry_Private(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(q->geo));
  PetscCall(VPChunkedFree_Private(&q->cgeo));
  q->d_geo = NULL;
  PetscCall(PetscFree(q->lgeo));
  PetscCall(VPDeviceFree_Private(&q->d_lgeo));
  PetscCall(PetscFree(q->mgeo));
  PetscCall(VPDeviceFree_Private(&q->d_mgeo));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VPMappedFloatFree_CUDA(&q->d_geof));
  PetscCall(VPChunkedFree_Private(&q->cglo));
  q->d_geolo = NULL;
  PetscCall(VPMappedFloatFree_CUDA(&q->d_lgeof));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
