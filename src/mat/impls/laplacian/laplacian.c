/*
  The matrix-free Q_k Laplacian of a DMQBOX (host glue): the MATSHELL that DMCreateMatrix() returns by default
  (src/dm/impls/qbox/qboxmat.c makes it; the CPU kernels are laplacian_cpu.c, the CUDA kernels cuda/laplacian.cu).
  With a map or a coefficient (src/dm/impls/qbox/qboxgeo.c) the same shell applies -div(a grad u) on the mapped cells
  with the DM's geometric factors (CPU: laplacian_cpu.c, VPMappedApply_CPU(); CUDA: cuda/mapped.cu).

  The operator owns its description: the weights of mass M + stiff K (VPWeights; DMCreateMatrix() gives the DM's weights,
  by default the Laplacian {0, 1}, DMCreateMassMatrix() the mass matrix {1, 0}), an identity shift (MatShift()) and a
  diagonal (MatDiagonalSet()). MatScale(), MatShift(), MatAXPY() and MatCopy() of these operators of one DM combine the
  descriptions exactly, so a time stepper's J = shift M + K is again one operator, applied by one kernel pass and solved
  exactly by the vertex-patch smoother (MatQBoxLaplacianGetInfo_Private() is how PCVPATCH reads it). On a mapped box the
  mass term is a second kernel pass (the factors w det J of qboxgeo.c), the Cartesian box's rides in the operator's own
  kernel.

  MatMult = global-to-local, cell kernel (sum factorization) on the owned cells, local-to-global with ADD. MatResidual
  on one rank: the same kernel adds b (r = b - A x in one pass, -dm_qbox_fused_residual). Dirichlet
  nodes are eliminated: their rows are the identity and their columns are zero in the interior rows, so the operator
  is symmetric positive definite. For PETSc's methods that need matrix entries (MatSOR(), MatGetFactor(),
  PCREDUNDANT's MatCreateSubMatrices()) the shell delegates to an assembled copy made on first use.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petsc/private/matimpl.h>
#include <petscdmda.h>

typedef struct {
  DM               dm;       /* the DMQBOX (referenced); several ranks: its pool of local vectors (DMGetLocalVector()) holds the ghosted
                                input and output, shared with the smoother and the transfers of the level */
  VPWeights        w;        /* the operator is w.mass M + w.stiff K (+ shift I + diag(dshift)) */
  PetscScalar      shift;    /* MatShift() */
  Vec              dshift;   /* MatDiagonalSet() (ADD_VALUES), or NULL */
  Vec              dwork;    /* dshift .* x, made with dshift */
  Mat              aij;      /* the same operator assembled, made on first use by MatSOR(), MatGetFactor(), MatCreateSubMatrices() */
  PetscObjectState aijstate; /* the state of the shell when aij was assembled (MatScale()/MatShift() change it) */
  PetscScalar     *work;     /* CPU kernels of the mapped operator: VPMappedWorkSize() scalars */
  PetscBool        single;   /* set during MatQBoxMultSingle_Private() only: the mapped CUDA kernel in float, whatever the DM's precision */
} Mat_QBoxLaplacian;

/* the identity shift and the diagonal added to y = A x, after the kernel */
static PetscErrorCode MatQBoxAddShifts(Mat_QBoxLaplacian *ctx, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (ctx->shift != (PetscScalar)0.0) PetscCall(VecAXPY(y, ctx->shift, x));
  if (ctx->dshift) {
    PetscCall(VecPointwiseMult(ctx->dwork, ctx->dshift, x));
    PetscCall(VecAXPY(y, 1.0, ctx->dwork));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y += alpha K x on a mapped box on the GPU (VPMappedApply_CUDA(); with b the residual's Dirichlet rows): the factors
   computed in the kernel, or read in float (single precision, or MatQBoxMultSingle_Private()) or in double */
static PetscErrorCode MatQBoxMappedApplyCUDA(Mat A, PetscScalar alpha, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  if (q->geofly && q->grid.dim == 3) { /* the factors in the kernel; the stored ones checked the map and coefficient */
    const PetscReal *d_geo;
    VPGeometryParams p;
    PetscCheck(q->maptype != DMQBOX_MAPPING_USER && q->coeftype != DMQBOX_COEFFICIENT_USER, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
               "-dm_qbox_geometry_onthefly: the CUDA kernel evaluates the built-in maps and coefficients only, not callbacks; drop the option");
    PetscCall(DMQBoxGetGeometry_Private(ctx->dm, NULL, &d_geo));
    PetscCall(DMQBoxGeometryParams_Private(ctx->dm, &p));
    PetscCall(VPMappedApply_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), &p, NULL, NULL, alpha, b, x, y));
  } else if (q->precision == VP_PRECISION_SINGLE || ctx->single) {
    const float *d_geof;
    PetscCall(DMQBoxGetGeometryFloat_Private(ctx->dm, &d_geof));
    PetscCall(VPMappedApply_CUDA(&q->grid, PETSC_TRUE, NULL, d_geof, NULL, alpha, b, x, y));
  } else {
    VPGeoRef geo; /* double, or float halves (left split) */
    PetscCall(DMQBoxGetGeometryRef_Private(ctx->dm, &geo));
    PetscCall(VPMappedApply_CUDA(&q->grid, PETSC_FALSE, NULL, geo.lo ? (const void *)geo.hi : (const void *)geo.d, geo.lo, alpha, b, x, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = z + A x (z may be NULL) by the kernels: on a mapped box the kernel applies K, the caller scales */
static PetscErrorCode MatQBoxApplyKernels(Mat A, Vec x, Vec z, Vec y)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mt;
  PetscBool          global = PETSC_FALSE, general, own;
  DMQBoxGhosted      X, Y;
  VPGrid             g; /* the cells computed here */

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q       = (DM_QBox *)ctx->dm->data;
  general = DMQBoxIsGeneral_Private(q);
  g       = q->grid;
  /* y = A x on several ranks, Cartesian: a rank owns the nodes of its lower faces, whose rows take the cells below too,
     and those lie in its ghosted box; computed here as well, every owned row is complete and y needs no exchange (the
     cells of that layer, about 1 / (cells per rank along the cut) more work, against an exchange with its host wait) */
  own = (PetscBool)(!z && !general);
  if (own)
    for (PetscInt d = 0; d < q->dim; d++)
      if (g.cm[d] && g.cs[d] > 0) {
        g.cs[d]--;
        g.cm[d]++;
      }
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, y, 0));
  if (!z) PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, x, &global));
  if (global) {
    PetscCall(VecSet(y, 0.0));
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    PetscCall(VecGetArrayAndMemType(y, &ya, NULL));
  } else { /* y = z + A x: the kernel sets the Dirichlet rows, so A x is summed in a local vector before z is added */
    PetscCall(DMQBoxGhostedGet_Private(ctx->dm, x, DMQBOX_GHOSTED_IN, PETSC_FALSE, &X));
    if (z && z != y) PetscCall(VecCopy(z, y));
    PetscCall(DMQBoxGhostedGet_Private(ctx->dm, y, z ? DMQBOX_GHOSTED_OUT_ADD : own ? DMQBOX_GHOSTED_OUT_OWNED : DMQBOX_GHOSTED_OUT_SUM, (PetscBool) !!z, &Y));
    xa = X.a;
    ya = Y.a;
    mt = X.mt;
    PetscCheck(X.mt == Y.mt, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMult of the DMQBOX operator: x and y live in different memory (host and device); use vectors of the DM");
  }
  if (PetscMemTypeDevice(mt)) {
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* also the operator kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    if (general)
      PetscCall(MatQBoxMappedApplyCUDA(A, 1.0, NULL, xa, ya));
    else
      PetscCall(VPLaplacianApply_CUDA(&g, &ctx->w, (PetscBool)(q->precision == VP_PRECISION_SINGLE), q->deterministic, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(general ? VPFlopsMapped(&g) : VPFlopsLaplacian(&g)));
  } else {
    PetscCheck(q->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "DMQBOX single precision (-dm_qbox_precision, -dm_qbox_mg_precision) runs on the GPU only: use -dm_vec_type cuda, or double precision");
    if (general) {
      const PetscReal *geo;
      PetscCall(DMQBoxGetGeometry_Private(ctx->dm, &geo, NULL));
      PetscCall(VPMappedApply_CPU(&q->grid, &q->basis, geo, xa, ya, ctx->work));
    } else
      PetscCall(VPLaplacianApply_CPU(&g, &q->basis, &ctx->w, xa, ya));
    PetscCall(PetscLogFlops(general ? VPFlopsMapped(&g) : VPFlopsLaplacian(&g)));
  }
  if (global) {
    PetscCall(VecRestoreArrayAndMemType(y, &ya));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  } else {
    PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &Y));
    PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &X));
  }
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M x on a mapped box (the mass kernels: y holds M x alone, Dirichlet rows the identity) */
static PetscErrorCode MatQBoxApplyMappedMass(Mat_QBoxLaplacian *ctx, Vec x, Vec y)
{
  DM_QBox         *q = (DM_QBox *)ctx->dm->data;
  const PetscReal *mgeo, *d_mgeo;
  DMQBoxGhosted    X, Y;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, NULL, x, y, 0));
  PetscCall(DMQBoxGhostedGet_Private(ctx->dm, x, DMQBOX_GHOSTED_IN, PETSC_FALSE, &X));
  PetscCall(DMQBoxGhostedGet_Private(ctx->dm, y, DMQBOX_GHOSTED_OUT_SUM, PETSC_FALSE, &Y));
  PetscCheck(X.mt == Y.mt, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMult of the DMQBOX operator: x and y live in different memory (host and device); use vectors of the DM");
  if (PetscMemTypeDevice(X.mt)) {
    PetscCall(DMQBoxGetMassGeometry_Private(ctx->dm, NULL, &d_mgeo));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPMappedMassApply_CUDA(&q->grid, &q->basis, d_mgeo, X.a, Y.a));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(VPFlopsMappedMass(&q->grid)));
  } else {
    PetscCall(DMQBoxGetMassGeometry_Private(ctx->dm, &mgeo, NULL));
    PetscCall(VPMappedMassApply_CPU(&q->grid, &q->basis, mgeo, X.a, Y.a));
    PetscCall(PetscLogFlops(VPFlopsMappedMass(&q->grid)));
  }
  PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &Y));
  PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &X));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, NULL, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_QBoxLaplacian(Mat A, Vec x, Vec z, Vec y)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  if (DMQBoxIsGeneral_Private((DM_QBox *)ctx->dm->data) && (ctx->w.stiff != 1.0 || ctx->w.mass != 0)) { /* mapped: the kernels apply K and M apart */
    Vec t = y;
    if (z) PetscCall(DMGetGlobalVector(ctx->dm, &t));
    PetscCall(MatQBoxApplyKernels(A, x, NULL, t));
    PetscCall(VecScale(t, ctx->w.stiff));
    if (ctx->w.mass != 0) {
      Vec m;
      PetscCall(DMGetGlobalVector(ctx->dm, &m));
      PetscCall(MatQBoxApplyMappedMass(ctx, x, m));
      PetscCall(VecAXPY(t, ctx->w.mass, m));
      PetscCall(DMRestoreGlobalVector(ctx->dm, &m));
    }
    if (z) {
      PetscCall(VecWAXPY(y, 1.0, t, z));
      PetscCall(DMRestoreGlobalVector(ctx->dm, &t));
    }
  } else
    PetscCall(MatQBoxApplyKernels(A, x, z, y));
  PetscCall(MatQBoxAddShifts(ctx, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_QBoxLaplacian(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_QBoxLaplacian(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x with the stiffness of a mapped operator on the GPU in float (the factors in float: half the bytes), for a
   single-precision smoother's residuals (PCVPATCH's mapped variant); otherwise MatMult() */
PetscErrorCode MatQBoxMultSingle_Private(Mat A, Vec x, Vec y)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  ctx->single = PETSC_TRUE;
  PetscCall(MatMult(A, x, y));
  ctx->single = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x as MatResidual() does, with the mapped operator's factors in float as in MatQBoxMultSingle_Private() */
PetscErrorCode MatQBoxResidualSingle_Private(Mat A, Vec b, Vec x, Vec r)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  ctx->single = PETSC_TRUE;
  PetscCall(MatResidual(A, b, x, r));
  ctx->single = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether VPMappedPatchResidual_CUDA() can form A's patch residuals (MatQBoxPatchResidual_Private()): CUDA vectors of
   the DM, 3D mapped operator, stiffness only, stored factors, -dm_qbox_fused_residual; with a solve (solve: the tables t
   given) in single precision or on a double operator. The same on every rank. */
static PetscErrorCode MatQBoxPatchResidualCan(Mat A, PetscBool single, PetscBool solve, PetscBool *can)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q    = (DM_QBox *)ctx->dm->data;
  *can = (PetscBool)(q->fusedres && DMQBoxIsGeneral_Private(q) && q->grid.dim == 3 && !q->geofly && ctx->w.mass == 0 && ctx->shift == (PetscScalar)0.0 && !ctx->dshift && !(solve && !single && q->precision == VP_PRECISION_SINGLE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatQBoxPatchResidual_Private() on arrays: ba, xa, ra ghosted local arrays of the DM (local) or global ones on one
   rank, device memory, current on their ghosts; ra = xa with t: the corrections added into x in place */
PetscErrorCode MatQBoxPatchResidualArrays_Private(Mat A, PetscBool single, PetscInt color, PetscBool local, const PetscScalar *ba, const PetscScalar *xa, PetscScalar *ra, const VPPatchScaledTables *t, const PetscReal *d_pg, const PetscScalar *d_diag,
                                                  PetscBool *done)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  const void        *d_geo, *d_lgeo = NULL;

  PetscFunctionBegin;
  PetscCall(MatQBoxPatchResidualCan(A, single, (PetscBool) !!t, done));
  if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  if (single || q->precision == VP_PRECISION_SINGLE) {
    const float *d_geof, *d_lgeof;
    PetscCall(DMQBoxGetGeometryFloat_Private(ctx->dm, &d_geof));
    if (local) PetscCall(DMQBoxGetLayerGeometry_Private(ctx->dm, NULL, NULL, &d_lgeof));
    d_geo  = d_geof;
    d_lgeo = local ? (const void *)d_lgeof : NULL;
    single = PETSC_TRUE;
  } else {
    const PetscReal *d_geod, *d_lgeod;
    PetscCall(DMQBoxGetGeometry_Private(ctx->dm, NULL, &d_geod));
    if (local) PetscCall(DMQBoxGetLayerGeometry_Private(ctx->dm, NULL, &d_lgeod, NULL));
    d_geo  = d_geod;
    d_lgeo = local ? (const void *)d_lgeod : NULL;
  }
  PetscCall(PetscLogEventBegin(VPATCH_PatchResidual, A, 0, 0, 0));
  PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* the operator kernel's constants */
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(VPMappedPatchResidual_CUDA(&q->grid, single, d_geo, d_lgeo, color, ctx->w.stiff, ba, xa, ra, t, d_pg, d_diag));
  PetscCall(PetscLogGpuTimeEnd());
  { /* the color's patches, 2^3 cells each, and one subtraction per interior node (the local solve's flops: the PC's) */
    int            vlo[3], nv[3];
    PetscLogDouble np = VPPatchColorVertices(&q->grid, color, vlo, nv) ? (PetscLogDouble)nv[0] * nv[1] * nv[2] : 0;
    PetscCall(PetscLogGpuFlops(np * (8 * VPFlopsMappedCell(3, q->grid.k) + PetscPowInt(2 * q->grid.k - 1, 3))));
  }
  PetscCall(PetscLogEventEnd(VPATCH_PatchResidual, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x on the interior nodes of the vertex patches of one color only (the residual PCVPATCH's solves of that color
   read; r's other entries are left as they are), by VPMappedPatchResidual_CUDA(): CUDA vectors of the DM, 3D mapped
   operator, stiffness only, stored factors (in float when single), -dm_qbox_fused_residual. b, x, r: global vectors on
   one rank, or (local) ghosted local vectors of the DM, current on their ghosts, on any number of ranks (the patches'
   cells below this rank's from DMQBoxGetLayerGeometry_Private()). With t, in the same kernel PCVPATCH's local solver
   scaled on that residual, its corrections added into r: x itself (one rank, in place) or a correction vector (local)
   (d_pg: the surrogate's factors, d_diag: the operator's diagonal, ghosted; device arrays). *done says whether it ran;
   where it cannot, the caller forms the whole residual. The kernel is the operator's (its passes and tables), so it
   lives here. */
PetscErrorCode MatQBoxPatchResidual_Private(Mat A, PetscBool single, PetscInt color, PetscBool local, Vec b, Vec x, Vec r, const VPPatchScaledTables *t, const PetscReal *d_pg, const PetscScalar *d_diag, PetscBool *done)
{
  Mat_QBoxLaplacian *ctx;
  PetscBool          gx = PETSC_TRUE, gb = PETSC_TRUE, gr = PETSC_TRUE;
  const PetscScalar *ba, *xa;
  PetscScalar       *ra;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(MatShellGetContext(A, &ctx));
  if (r == b || (local ? !t || r == x : (t ? r != x : r == x))) PetscFunctionReturn(PETSC_SUCCESS);
  if (!local) {
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, x, &gx));
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, b, &gb));
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, r, &gr));
  }
  if (!gx || !gb || !gr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatQBoxPatchResidualCan(A, single, (PetscBool) !!t, done));
  if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayReadAndMemType(b, &ba, NULL));
  PetscCall(VecGetArrayAndMemType(r, &ra, NULL)); /* with t on one rank: x itself */
  if (r == x)
    xa = ra;
  else
    PetscCall(VecGetArrayReadAndMemType(x, &xa, NULL));
  PetscCall(MatQBoxPatchResidualArrays_Private(A, single, color, local, ba, xa, ra, t, d_pg, d_diag, done));
  if (r != x) PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  PetscCall(VecRestoreArrayAndMemType(r, &ra));
  PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatResidual(): r = b - A x. On one rank with CUDA vectors (-dm_qbox_fused_residual), no shift or diagonal: the
   Cartesian operator (any weights) adds b in its kernel (VPLaplacianResidual_CUDA()), one pass over x and b where
   MatMult() and VecAYPX() make two more over r and one more over b; the mapped one (stiffness only; its kernel adds
   into r with atomics) starts from r = b and adds -stiff K x: a copy instead of MatMult()'s zeroing and VecAYPX()'s
   pass. Otherwise MatMult() and VecAYPX(), as PETSc. */
static PetscErrorCode MatResidual_QBoxLaplacian(Mat A, Vec b, Vec x, Vec r)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  PetscBool          fused = PETSC_FALSE, general;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q       = (DM_QBox *)ctx->dm->data;
  general = DMQBoxIsGeneral_Private(q);
  if (q->fusedres && (!general || ctx->w.mass == 0) && ctx->shift == (PetscScalar)0.0 && !ctx->dshift && r != x && r != b) {
    PetscBool gx, gb;
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, x, &gx));
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, b, &gb));
    fused = (PetscBool)(gx && gb);
  }
  if (!fused) {
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
  } else {
    const PetscScalar *xa, *ba;
    PetscScalar       *ra;
    PetscMemType       mt;

    PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, r, 0));
    if (general) PetscCall(VecCopy(b, r)); /* the kernel adds into r */
    PetscCall(VecGetArrayReadAndMemType(x, &xa, NULL));
    PetscCall(VecGetArrayReadAndMemType(b, &ba, NULL));
    if (general)
      PetscCall(VecGetArrayAndMemType(r, &ra, &mt));
    else
      PetscCall(VecGetArrayWriteAndMemType(r, &ra, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatResidual of the DMQBOX operator: b and x are CUDA vectors but r is not; use vectors of the DM");
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* the operator kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    if (general)
      PetscCall(MatQBoxMappedApplyCUDA(A, -ctx->w.stiff, ba, xa, ra));
    else
      PetscCall(VPLaplacianResidual_CUDA(&q->grid, &ctx->w, (PetscBool)(q->precision == VP_PRECISION_SINGLE), q->deterministic, ba, xa, ra));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((general ? VPFlopsMapped(&q->grid) : VPFlopsLaplacian(&q->grid)) + (PetscLogDouble)A->rmap->n));
    if (general)
      PetscCall(VecRestoreArrayAndMemType(r, &ra));
    else
      PetscCall(VecRestoreArrayWriteAndMemType(r, &ra));
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, r, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_QBoxLaplacian(Mat A, Vec d)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  PetscScalar       *da;
  PetscMemType       mt;
  DMQBoxGhosted      Y;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianDiag, A, d, 0, 0));
  PetscCall(DMQBoxGhostedGet_Private(ctx->dm, d, DMQBOX_GHOSTED_OUT_SUM, PETSC_FALSE, &Y));
  da = Y.a;
  mt = Y.mt;
  if (PetscMemTypeDevice(mt) && DMQBoxIsGeneral_Private(q)) {
    VPGeoRef geo;
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* the kernels' constants */
    PetscCall(DMQBoxGetGeometryRef_Private(ctx->dm, &geo));
    PetscCall(VPMappedDiagonal_CUDA(&q->grid, geo, da));
    PetscCall(PetscLogGpuFlops(VPFlopsMappedDiagonal(&q->grid)));
  } else if (PetscMemTypeDevice(mt)) {
    const PetscReal *d_lap;
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, &d_lap));
    PetscCall(VPLaplacianDiagonal_CUDA(&q->grid, &ctx->w, d_lap, da));
    PetscCall(PetscLogGpuFlops(VPFlopsDiagonal(&q->grid)));
  } else if (DMQBoxIsGeneral_Private(q)) {
    const PetscReal *geo;
    PetscCall(DMQBoxGetGeometry_Private(ctx->dm, &geo, NULL));
    PetscCall(VPMappedDiagonal_CPU(&q->grid, &q->basis, geo, da, ctx->work));
    PetscCall(PetscLogFlops(VPFlopsMappedDiagonal(&q->grid)));
  } else {
    PetscCall(VPLaplacianDiagonal_CPU(&q->grid, &q->basis, &ctx->w, da));
    PetscCall(PetscLogFlops(VPFlopsDiagonal(&q->grid)));
  }
  PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &Y));
  if (DMQBoxIsGeneral_Private(q) && ctx->w.stiff != 1.0) PetscCall(VecScale(d, ctx->w.stiff));
  if (DMQBoxIsGeneral_Private(q) && ctx->w.mass != 0) { /* the mass matrix's diagonal apart */
    Vec t;
    PetscCall(DMGetGlobalVector(ctx->dm, &t));
    PetscCall(DMQBoxGhostedGet_Private(ctx->dm, t, DMQBOX_GHOSTED_OUT_SUM, PETSC_FALSE, &Y));
    if (PetscMemTypeDevice(Y.mt)) {
      const PetscReal *d_mgeo;
      PetscCall(DMQBoxGetMassGeometry_Private(ctx->dm, NULL, &d_mgeo));
      PetscCall(VPMappedMassDiagonal_CUDA(&q->grid, &q->basis, d_mgeo, Y.a));
    } else {
      const PetscReal *mgeo;
      PetscCall(DMQBoxGetMassGeometry_Private(ctx->dm, &mgeo, NULL));
      PetscCall(VPMappedMassDiagonal_CPU(&q->grid, &q->basis, mgeo, Y.a));
    }
    PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &Y));
    PetscCall(VecAXPY(d, ctx->w.mass, t));
    PetscCall(DMRestoreGlobalVector(ctx->dm, &t));
  }
  if (ctx->shift != (PetscScalar)0.0) PetscCall(VecShift(d, ctx->shift));
  if (ctx->dshift) PetscCall(VecAXPY(d, 1.0, ctx->dshift));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianDiag, A, d, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateVecs_QBoxLaplacian(Mat A, Vec *right, Vec *left)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(DMQBoxMatCreateVecs_Private(ctx->dm, ctx->dm, right, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_QBoxLaplacian(Mat A, PetscViewer viewer)
{
  Mat_QBoxLaplacian *ctx;
  PetscBool          isascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    const char *K = DMQBoxIsGeneral_Private((DM_QBox *)ctx->dm->data) ? "operator -div(a grad u) on mapped cells" : "Laplacian";
    if (ctx->w.mass == 0 && ctx->w.stiff == 1)
      PetscCall(PetscViewerASCIIPrintf(viewer, "matrix-free Q_k %s of a DMQBOX (sum factorization, Dirichlet rows identity)\n", K));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "matrix-free Q_k operator %g M + %g K of a DMQBOX, M the mass matrix, K the %s (sum factorization, Dirichlet rows (%g + %g) times the identity)\n", (double)ctx->w.mass, (double)ctx->w.stiff, K,
                                       (double)ctx->w.mass, (double)ctx->w.stiff));
    if (ctx->shift != (PetscScalar)0.0) PetscCall(PetscViewerASCIIPrintf(viewer, "  plus %g I (MatShift())\n", (double)PetscRealPart(ctx->shift)));
    if (ctx->dshift) PetscCall(PetscViewerASCIIPrintf(viewer, "  plus a diagonal (MatDiagonalSet())\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(DMView(ctx->dm, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_QBoxLaplacian(Mat A)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(MatDestroy(&ctx->aij));
  PetscCall(VecDestroy(&ctx->dshift));
  PetscCall(VecDestroy(&ctx->dwork));
  PetscCall(PetscFree(ctx->work));
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatQBoxOperatorGetContext_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatQBoxLaplacianGetInfo_Private - Whether A is a matrix-free operator of a DMQBOX (continuous: mass M + stiff K; on the
  discontinuous space: its SIPG operator K), and its description: the one accessor PCVPATCH reads

  Output Parameters:
+ dm    - the DMQBOX of the operator, or NULL when A is not such an operator (the other outputs are then unset)
. w     - A = w.mass M + w.stiff K + shift I (+ what other names)
. shift - see w
- other - NULL, or the name of a further change that the weights and the shift do not describe
*/
PetscErrorCode MatQBoxLaplacianGetInfo_Private(Mat A, DM *dm, VPWeights *w, PetscScalar *shift, const char **other)
{
  PetscBool          isshell;
  PetscErrorCodeFn  *mult = NULL;
  Mat_QBoxLaplacian *ctx;
  Vec                dshift, left, right;
  Mat                axpy;
  IS                 zrows, zcols;
  PetscScalar        scale;

  PetscFunctionBegin;
  *dm      = NULL;
  w->mass  = 0.0;
  w->stiff = 1.0;
  *shift   = 0.0;
  *other   = NULL;
  PetscCall(MatIsShell(A, &isshell));
  if (!isshell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetOperation(A, MATOP_MULT, &mult));
  if (mult == (PetscErrorCodeFn *)MatMult_QBoxLaplacian) { /* the operator keeps its own description */
    PetscCall(MatShellGetContext(A, &ctx));
    *dm    = ctx->dm;
    *w     = ctx->w;
    *shift = ctx->shift;
    if (ctx->dshift) *other = "a diagonal added by MatDiagonalSet()";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatQBoxSIPGGetDM_Private(A, dm)); /* the discontinuous space's operator (src/mat/impls/sipg/): MATSHELL records the changes */
  if (!*dm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetScalingShifts(A, shift, &scale, &dshift, &left, &right, &axpy, &zrows, &zcols));
  w->stiff = PetscRealPart(scale);
  if (PetscImaginaryPart(scale) != 0) *other = "a complex scale";
  if (dshift)
    *other = "a diagonal added by MatDiagonalSet()";
  else if (left || right)
    *other = "a diagonal scaling by MatDiagonalScale()";
  else if (axpy)
    *other = "a matrix added by MatAXPY()";
  else if (zrows || zcols)
    *other = "rows zeroed by MatZeroRows() or MatZeroRowsColumns()";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator A (its weights, shift and diagonal) assembled as AIJ: made on first use and again after A changed, for
   PETSc's methods that need matrix entries (MatSOR(), MatGetFactor(), PCREDUNDANT) */
static PetscErrorCode MatQBoxLaplacianGetAIJ(Mat A, const char caller[], Mat *B)
{
  Mat_QBoxLaplacian *ctx;
  PetscObjectState   state;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!ctx->aij || ctx->aijstate != state) {
    PetscCall(PetscInfo(A, "%s on the matrix-free DMQBOX operator: assembling it as %s (the vertex-patch smoother, -mg_levels_pc_type vpatch, needs no assembled matrix)\n", caller, MATAIJ));
    PetscCall(MatDestroy(&ctx->aij));
    PetscCall(DMQBoxAssembleLaplacian_Private(ctx->dm, MATAIJ, &ctx->w, &ctx->aij));
    if (ctx->shift != (PetscScalar)0.0) PetscCall(MatShift(ctx->aij, ctx->shift));
    if (ctx->dshift) PetscCall(MatDiagonalSet(ctx->aij, ctx->dshift, ADD_VALUES));
    ctx->aijstate = state;
  }
  *B = ctx->aij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the assembled copy for a method outside (PCAUXAMG as the coarse solver of PCMG), owned by A; B = NULL when A is not
   the continuous space's matrix-free operator */
PetscErrorCode MatQBoxLaplacianGetAIJ_Private(Mat A, const char caller[], Mat *B)
{
  DM          dm;
  VPWeights   w;
  PetscScalar shift;
  const char *other;

  PetscFunctionBegin;
  *B = NULL;
  PetscCall(MatQBoxLaplacianGetInfo_Private(A, &dm, &w, &shift, &other));
  if (dm && !((DM_QBox *)dm->data)->dg) PetscCall(MatQBoxLaplacianGetAIJ(A, caller, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's default multigrid smoother (Chebyshev with PCSOR) on the matrix-free operator: SOR of the assembled copy */
static PetscErrorCode MatSOR_QBoxLaplacian(Mat A, Vec b, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec x)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatSOR()", &B));
  PetscCall(MatSOR(B, b, omega, flag, fshift, its, lits, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCREDUNDANT (PCMG's default coarse solver on several processes) gathers the operator by MatCreateSubMatrices() */
static PetscErrorCode MatCreateSubMatrices_QBoxLaplacian(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatCreateSubMatrices()", &B));
  PetscCall(MatCreateSubMatrices(B, n, irow, icol, scall, submat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A direct factorization of the matrix-free operator (PCLU, PCCHOLESKY: PCMG's default coarse solver on one process):
   the factor F is a MATSHELL around PETSc's factor FA of the assembled copy B */
typedef struct {
  Mat B;  /* the assembled operator (referenced) */
  Mat FA; /* its factor */
  IS  row, col;
} Mat_QBoxFactor;

static PetscErrorCode MatQBoxFactorUpdate(Mat F, Mat A, Mat_QBoxFactor **fctx)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, fctx));
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatGetFactor()", &B));
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(MatDestroy(&(*fctx)->B));
  (*fctx)->B = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatQBoxFactorUpdate(F, A, &fctx));
  if (F->factortype == MAT_FACTOR_LU)
    PetscCall(MatLUFactorNumeric(fctx->FA, fctx->B, info));
  else
    PetscCall(MatCholeskyFactorNumeric(fctx->FA, fctx->B, info));
  F->factorerrortype = fctx->FA->factorerrortype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symbolic phase of either factorization: a nested-dissection ordering of the assembled copy */
static PetscErrorCode MatQBoxFactorOrdering(Mat F, Mat A, Mat_QBoxFactor **fctx)
{
  PetscFunctionBegin;
  PetscCall(MatQBoxFactorUpdate(F, A, fctx));
  PetscCall(ISDestroy(&(*fctx)->row));
  PetscCall(ISDestroy(&(*fctx)->col));
  PetscCall(MatGetOrdering((*fctx)->B, MATORDERINGND, &(*fctx)->row, &(*fctx)->col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorLUSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  (void)row;
  (void)col;
  PetscCall(MatQBoxFactorOrdering(F, A, &fctx));
  PetscCall(MatLUFactorSymbolic(fctx->FA, fctx->B, fctx->row, fctx->col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorCholeskySymbolic(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  (void)perm;
  PetscCall(MatQBoxFactorOrdering(F, A, &fctx));
  PetscCall(MatCholeskyFactorSymbolic(fctx->FA, fctx->B, fctx->row, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorSolve(Mat F, Vec b, Vec x)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatSolve(fctx->FA, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorGetInfo(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatGetInfo(fctx->FA, flag, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorGetSolverType(Mat F, MatSolverType *type)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatFactorGetSolverType(fctx->FA, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorDestroy(Mat F)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatDestroy(&fctx->FA));
  PetscCall(MatDestroy(&fctx->B));
  PetscCall(ISDestroy(&fctx->row));
  PetscCall(ISDestroy(&fctx->col));
  PetscCall(PetscFree(fctx));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_QBoxLaplacian(Mat A, MatSolverType type, MatFactorType ftype, Mat *F)
{
  Mat_QBoxFactor *fctx;
  Mat             B;
  PetscInt        m, n, M, N;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_LU || ftype == MAT_FACTOR_CHOLESKY, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
             "The matrix-free DMQBOX operator offers LU and Cholesky factorizations (of an assembled copy), not %s: use -dm_mat_type aij for other factorizations", MatFactorTypes[ftype]);
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatGetFactor()", &B));
  PetscCall(PetscNew(&fctx));
  PetscCall(MatGetFactor(B, type, ftype, &fctx->FA));
  fctx->B = B;
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)A), m, n, M, N, fctx, F));
  PetscCall(MatShellSetOperation(*F, MATOP_DESTROY, (PetscErrorCodeFn *)MatQBoxFactorDestroy));
  PetscCall(MatShellSetOperation(*F, MATOP_GETINFO, (PetscErrorCodeFn *)MatQBoxFactorGetInfo));
  PetscCall(MatShellSetOperation(*F, MATOP_SOLVE, (PetscErrorCodeFn *)MatQBoxFactorSolve));
  PetscCall(MatShellSetOperation(*F, MATOP_SOLVE_TRANSPOSE, (PetscErrorCodeFn *)MatQBoxFactorSolve)); /* symmetric */
  if (ftype == MAT_FACTOR_LU) {
    PetscCall(MatShellSetOperation(*F, MATOP_LUFACTOR_SYMBOLIC, (PetscErrorCodeFn *)MatQBoxFactorLUSymbolic));
    PetscCall(MatShellSetOperation(*F, MATOP_LUFACTOR_NUMERIC, (PetscErrorCodeFn *)MatQBoxFactorNumeric));
  } else {
    PetscCall(MatShellSetOperation(*F, MATOP_CHOLESKY_FACTOR_SYMBOLIC, (PetscErrorCodeFn *)MatQBoxFactorCholeskySymbolic));
    PetscCall(MatShellSetOperation(*F, MATOP_CHOLESKY_FACTOR_NUMERIC, (PetscErrorCodeFn *)MatQBoxFactorNumeric));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatFactorGetSolverType_C", MatQBoxFactorGetSolverType));
  (*F)->factortype = ftype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG -pc_mg_galerkin forms P^T A P: not with matrix-free operators and transfers; say what to do instead */
static PetscErrorCode MatProductSymbolic_QBoxLaplacian_Galerkin(Mat A, Mat P, Mat C, void **data)
{
  PetscFunctionBegin;
  (void)P;
  (void)C;
  (void)data;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
          "P^T A P of the matrix-free DMQBOX operator (PCMG -pc_mg_galerkin): the DMQBOX operators and transfers are matrix-free, so no Galerkin product is formed. PCMG gets each level's operator from its DMQBOX (the Q_k Laplacian of that mesh, "
          "which is the Galerkin operator of the nested spaces on the unknowns): drop -pc_mg_galerkin");
}

static PetscErrorCode MatProductNumeric_QBoxLaplacian_Galerkin(Mat A, Mat P, Mat C, void *data)
{
  PetscFunctionBegin;
  PetscCall(MatProductSymbolic_QBoxLaplacian_Galerkin(A, P, C, NULL));
  (void)data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The context of X when X is a matrix-free operator of a DMQBOX's continuous space, else NULL */
static PetscErrorCode MatQBoxOperatorContext(Mat X, Mat_QBoxLaplacian **ctx)
{
  PetscErrorCode (*f)(Mat, Mat_QBoxLaplacian **) = NULL;

  PetscFunctionBegin;
  *ctx = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)X, "MatQBoxOperatorGetContext_C", &f));
  if (f) PetscCall((*f)(X, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxOperatorGetContext(Mat X, Mat_QBoxLaplacian **ctx)
{
  PetscFunctionBegin;
  PetscCall(MatShellGetContext(X, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operator X of a DMQBOX's continuous space on the same mesh as Y's, named in the error otherwise */
static PetscErrorCode MatQBoxOperatorCompatible(Mat Y, Mat X, const char caller[], Mat_QBoxLaplacian **xctx)
{
  Mat_QBoxLaplacian *yctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(Y, &yctx));
  PetscCall(MatQBoxOperatorContext(X, xctx));
  PetscCheck(*xctx, PetscObjectComm((PetscObject)Y), PETSC_ERR_SUP,
             "%s of the matrix-free DMQBOX operator with a matrix of type %s that is not a DMQBOX operator: the operator combines only with the operators of its DM (DMCreateMatrix(), DMCreateMassMatrix()); assemble both (-dm_mat_type aij) to "
             "combine other matrices",
             caller, ((PetscObject)X)->type_name);
  PetscCheck((*xctx)->dm == yctx->dm, PetscObjectComm((PetscObject)Y), PETSC_ERR_ARG_INCOMP, "%s of two matrix-free DMQBOX operators of different DMs: use the operators of one DM (DMCreateMatrix(), DMCreateMassMatrix() of the same DM)", caller);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxOperatorSetDiagonal(Mat_QBoxLaplacian *ctx, Vec d, PetscScalar a)
{
  PetscFunctionBegin;
  if (!d) {
    PetscCall(VecDestroy(&ctx->dshift));
    PetscCall(VecDestroy(&ctx->dwork));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ctx->dshift) {
    PetscCall(VecDuplicate(d, &ctx->dshift));
    PetscCall(VecDuplicate(d, &ctx->dwork));
    PetscCall(VecZeroEntries(ctx->dshift));
  }
  PetscCall(VecAXPY(ctx->dshift, a, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatScale_QBoxOperator(Mat Y, PetscScalar a)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(Y, &ctx));
  PetscCheck(PetscImaginaryPart(a) == 0 && !PetscIsNanScalar(a), PetscObjectComm((PetscObject)Y), PETSC_ERR_ARG_OUTOFRANGE, "MatScale() of the matrix-free DMQBOX operator by %g: give a real number", (double)PetscRealPart(a));
  ctx->w.mass *= PetscRealPart(a);
  ctx->w.stiff *= PetscRealPart(a);
  ctx->shift *= a;
  if (ctx->dshift) PetscCall(VecScale(ctx->dshift, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatShift_QBoxOperator(Mat Y, PetscScalar a)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(Y, &ctx));
  ctx->shift += a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalSet_QBoxOperator(Mat Y, Vec d, InsertMode mode)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(Y, &ctx));
  PetscCheck(mode == ADD_VALUES, PetscObjectComm((PetscObject)Y), PETSC_ERR_SUP, "MatDiagonalSet() of the matrix-free DMQBOX operator adds to the diagonal (ADD_VALUES); to replace it, assemble the operator (-dm_mat_type aij)");
  PetscCall(MatQBoxOperatorSetDiagonal(ctx, d, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X for X an operator of the same DM: the descriptions add (the weights, the shift, the diagonal) */
static PetscErrorCode MatAXPY_QBoxOperator(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_QBoxLaplacian *yctx, *xctx;

  PetscFunctionBegin;
  (void)str;
  PetscCall(MatShellGetContext(Y, &yctx));
  PetscCall(MatQBoxOperatorCompatible(Y, X, "MatAXPY()", &xctx));
  PetscCheck(PetscImaginaryPart(a) == 0 && !PetscIsNanScalar(a), PetscObjectComm((PetscObject)Y), PETSC_ERR_ARG_OUTOFRANGE, "MatAXPY() of matrix-free DMQBOX operators with a = %g: give a real number", (double)PetscRealPart(a));
  if (X == Y) {
    PetscCall(MatScale_QBoxOperator(Y, 1.0 + a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  yctx->w.mass += PetscRealPart(a) * xctx->w.mass;
  yctx->w.stiff += PetscRealPart(a) * xctx->w.stiff;
  yctx->shift += a * xctx->shift;
  if (xctx->dshift) PetscCall(MatQBoxOperatorSetDiagonal(yctx, xctx->dshift, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCopy(A, B): B takes A's description (MATSHELL has already given B A's operations) */
static PetscErrorCode MatCopy_QBoxOperator(Mat A, Mat B, MatStructure str)
{
  Mat_QBoxLaplacian *actx, *bctx;

  PetscFunctionBegin;
  (void)str;
  PetscCall(MatShellGetContext(A, &actx));
  PetscCall(MatQBoxOperatorCompatible(A, B, "MatCopy()", &bctx));
  if (bctx == actx) PetscFunctionReturn(PETSC_SUCCESS);
  bctx->w     = actx->w;
  bctx->shift = actx->shift;
  PetscCall(MatQBoxOperatorSetDiagonal(bctx, NULL, 0.0));
  if (actx->dshift) PetscCall(MatQBoxOperatorSetDiagonal(bctx, actx->dshift, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a new operator with its own description (a shared one would change with the other's MatAXPY()); the description is
   the operator's values, so MAT_DO_NOT_COPY_VALUES gives the zero operator, as for an assembled matrix */
static PetscErrorCode MatDuplicate_QBoxOperator(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_QBoxLaplacian *ctx;
  const VPWeights    zero = {0.0, 0.0};

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(MatCreateQBoxOperator_Private(ctx->dm, op == MAT_DO_NOT_COPY_VALUES ? &zero : &ctx->w, B));
  if (op != MAT_DO_NOT_COPY_VALUES) PetscCall(MatCopy(A, *B, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalScale_QBoxOperator(Mat Y, Vec l, Vec r)
{
  PetscFunctionBegin;
  (void)l;
  (void)r;
  SETERRQ(PetscObjectComm((PetscObject)Y), PETSC_ERR_SUP, "MatDiagonalScale() of the matrix-free DMQBOX operator is not supported: assemble the operator (-dm_mat_type aij), or scale the vectors instead");
}

static PetscErrorCode MatZeroRowsColumns_QBoxOperator(Mat Y, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  (void)n;
  (void)rows;
  (void)diag;
  (void)x;
  (void)b;
  SETERRQ(PetscObjectComm((PetscObject)Y), PETSC_ERR_SUP,
          "MatZeroRows() or MatZeroRowsColumns() of the matrix-free DMQBOX operator is not supported: its Dirichlet rows are the box's boundary; assemble the operator (-dm_mat_type aij) for other rows");
}

/* the matrix-free operator w->mass M + w->stiff K of the DM (K: the Laplacian, or -div(a grad u) on a mapped box) */
PetscErrorCode MatCreateQBoxOperator_Private(DM dm, const VPWeights *w, Mat *A)

{
  DM_QBox           *q = (DM_QBox *)dm->data;
  Mat_QBoxLaplacian *ctx;
  PetscInt           n = q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
  const PetscReal   *geo;

  PetscFunctionBegin;
  PetscCheck(w->mass >= 0 && w->stiff >= 0 && !PetscIsInfOrNanReal(w->mass) && !PetscIsInfOrNanReal(w->stiff), PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE,
             "DMQBOX operator mass M + stiffness K with weights %g and %g: both must be finite and >= 0", (double)w->mass, (double)w->stiff);
  PetscCall(PetscNew(&ctx));
  ctx->dm = dm;
  ctx->w  = *w;
  PetscCall(PetscObjectReference((PetscObject)dm));
  if (DMQBoxIsGeneral_Private(q)) { /* the geometric factors now, where the operator will run, so that a bad map or coefficient stops here */
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda) {
      VPGeoRef ref; /* made if not yet, left split if split */
      PetscCall(DMQBoxGetDeviceMatrices_Private(dm, NULL));
      PetscCall(DMQBoxGetGeometryRef_Private(dm, &ref));
    } else
      PetscCall(DMQBoxGetGeometry_Private(dm, &geo, NULL));
    PetscCall(PetscMalloc1(VPMappedWorkSize(q->dim, q->degree), &ctx->work));
  }
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dm), n, n, PETSC_DETERMINE, PETSC_DETERMINE, ctx, A));
  PetscCall(MatShellSetVecType(*A, dm->vectype));
  PetscCall(MatShellSetManageScalingShifts(*A)); /* the operator keeps its own description (see the file's top) */
  PetscCall(MatShellSetOperation(*A, MATOP_SCALE, (PetscErrorCodeFn *)MatScale_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_SHIFT, (PetscErrorCodeFn *)MatShift_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_AXPY, (PetscErrorCodeFn *)MatAXPY_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_DIAGONAL_SET, (PetscErrorCodeFn *)MatDiagonalSet_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_DIAGONAL_SCALE, (PetscErrorCodeFn *)MatDiagonalScale_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_ZERO_ROWS, (PetscErrorCodeFn *)MatZeroRowsColumns_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_ZERO_ROWS_COLUMNS, (PetscErrorCodeFn *)MatZeroRowsColumns_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_COPY, (PetscErrorCodeFn *)MatCopy_QBoxOperator));
  PetscCall(MatShellSetOperation(*A, MATOP_DUPLICATE, (PetscErrorCodeFn *)MatDuplicate_QBoxOperator));
  PetscCall(PetscObjectComposeFunction((PetscObject)*A, "MatQBoxOperatorGetContext_C", MatQBoxOperatorGetContext));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (PetscErrorCodeFn *)MatMult_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMult_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (PetscErrorCodeFn *)MatGetDiagonal_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_RESIDUAL, (PetscErrorCodeFn *)MatResidual_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (PetscErrorCodeFn *)MatView_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_VECS, (PetscErrorCodeFn *)MatCreateVecs_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_SOR, (PetscErrorCodeFn *)MatSOR_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_FACTOR, (PetscErrorCodeFn *)MatGetFactor_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_SUBMATRICES, (PetscErrorCodeFn *)MatCreateSubMatrices_QBoxLaplacian));
  PetscCall(MatShellSetMatProductOperation(*A, MATPRODUCT_PtAP, MatProductSymbolic_QBoxLaplacian_Galerkin, MatProductNumeric_QBoxLaplacian_Galerkin, NULL, MATSHELL, MATSHELL));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_QBoxLaplacian));
  PetscCall(PetscObjectChangeTypeName((PetscObject)*A, MATSHELL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
