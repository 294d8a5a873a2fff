/*
  PCVPATCH's Cartesian variant (host glue; the kernels are vpatch_cpu.c and cuda/vpatch.cu): the operator mass M +
  stiffness K of a Cartesian DMQBOX (constant coefficient), each patch's matrix a Kronecker sum of 1D patch matrices,
  solved exactly by fast diagonalization (the mass term shifts the eigenvalues); the sweep in the ghosted local vectors
  with one exchange per group of colors on several ranks, or by the fused kernels on the global arrays of one rank.
  The set-up of the 1D patch matrices, the sweep by MatMult residuals (PCVPatchSweepColors_Private()) and the additive
  type serve the mapped variant too (vpatch_mapped.c).
*/
#include <petscvpatch/private/pcvpatchimpl.h>
#include <lapacke.h>

/* the profile surrogate's tables are read by the patch kernel (MatQBoxPatchResidual_Private()) alone */
#define VP_PROFILE_KERNEL_ONLY \
  "PCVPATCH -pc_vpatch_surrogate profile runs on the GPU in the patch kernel only (3D, stiffness only, stored factors, -pc_vpatch_patch_residual and -dm_qbox_fused_residual on, operator scale 1): use -pc_vpatch_surrogate mean"

/* 1D patch matrices of two cells of size h, and the generalized eigenproblem of the interior block.
   The interior block is symmetric under the reflection i -> ni-1-i (the Gauss-Lobatto nodes are), so it maps even
   vectors to even and odd to odd: the eigenproblem is solved on the even subspace (dimension k) and on the odd one
   (k-1) apart, and S = [even eigenvectors | odd eigenvectors]. Any eigenvector order gives the same solve; this one
   lets the CUDA kernels apply S and S^T by even-odd decomposition (about half the multiply-adds, vpatch.cu) */
PetscErrorCode PCVPatchSetUpDirection_Private(VPPatchOp *op, const VPBasis1D *b, const VPWeights *w, PetscInt d, PetscReal h)
{
  PetscInt        k = b->k, n = k + 1, np = 2 * k + 1, ni = 2 * k - 1;
  PetscReal      *Mp = op->Mp[d], *Kp = op->Kp[d];
  PetscReal       Ms[VPATCH_MAX_NI * VPATCH_MAX_NI], Ks[VPATCH_MAX_NI * VPATCH_MAX_NI], Q[VPATCH_MAX_NI * VPATCH_MAX_NI];
  const PetscReal r2 = PetscSqrtReal(0.5);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < np * np; i++) Mp[i] = Kp[i] = 0.0;
  for (PetscInt c = 0; c < 2; c++)
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) {
        Mp[(c * k + i) * np + c * k + j] += h * b->M[i * n + j];
        Kp[(c * k + i) * np + c * k + j] += w ? VPWeightsStiff1D(w, d, b->K[i * n + j] / h, h * b->M[i * n + j]) : b->K[i * n + j] / h; /* the mass term rides in direction 0 */
      }
  /* orthonormal basis Q (columns): even e_a (a < k-1: (u_a + u_(ni-1-a)) / sqrt 2; a = k-1: the middle u_(k-1)), then
     odd o_a (a < k-1: (u_a - u_(ni-1-a)) / sqrt 2) */
  for (PetscInt i = 0; i < ni * ni; i++) Q[i] = 0.0;
  for (PetscInt a = 0; a < k - 1; a++) {
    Q[a * ni + a] = Q[(ni - 1 - a) * ni + a] = r2;
    Q[a * ni + k + a]                        = r2;
    Q[(ni - 1 - a) * ni + k + a]             = -r2;
  }
  Q[(k - 1) * ni + k - 1] = 1.0;
  for (PetscInt par = 0; par < 2; par++) {
    const PetscInt m = par ? k - 1 : k, o = par ? k : 0; /* columns o..o+m-1 of this parity */
    lapack_int     info;

    if (!m) continue;
    for (PetscInt a = 0; a < m; a++) /* Ks, Ms = Q_p^T (Kp, Mp on the interior) Q_p */
      for (PetscInt c = 0; c < m; c++) {
        PetscReal sm = 0, sk = 0;
        for (PetscInt i = 0; i < ni; i++)
          for (PetscInt j = 0; j < ni; j++) {
            const PetscReal w = Q[i * ni + o + a] * Q[j * ni + o + c];
            sm += w * Mp[(i + 1) * np + j + 1];
            sk += w * Kp[(i + 1) * np + j + 1];
          }
        Ms[a * m + c] = sm;
        Ks[a * m + c] = sk;
      }
    info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)m, Ks, (lapack_int)m, Ms, (lapack_int)m, op->lam[d] + o);
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACKE_dsygv failed for the 1D patch eigenproblem (degree %" PetscInt_FMT ", h %g, %s part): info %d", k, (double)h, par ? "odd" : "even", (int)info);
    for (PetscInt i = 0; i < ni; i++) /* eigenvectors in the columns, S^T M S = I */
      for (PetscInt j = 0; j < m; j++) {
        PetscReal s = 0;
        for (PetscInt a = 0; a < m; a++) s += Q[i * ni + o + a] * Ks[a * m + j];
        op->S[d][i * ni + o + j] = s;
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dense (2k-1)^d patch matrix by Kronecker products, LU-factored (local solver dense) */
static PetscErrorCode PCVPatchSetUpDense(PC_VPatch *jac)
{
  PetscInt   dim = jac->op.dim, ni = 2 * jac->op.k - 1, np = 2 * jac->op.k + 1, niz = dim == 3 ? ni : 1, nt = ni * ni * niz;
  lapack_int info;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nt * nt, &jac->LU, nt, &jac->piv));
  for (PetscInt iz = 0, r = 0; iz < niz; iz++)
    for (PetscInt iy = 0; iy < ni; iy++)
      for (PetscInt ix = 0; ix < ni; ix++, r++)
        for (PetscInt jz = 0, s = 0; jz < niz; jz++)
          for (PetscInt jy = 0; jy < ni; jy++)
            for (PetscInt jx = 0; jx < ni; jx++, s++) {
#define M1(d, i, j) jac->op.Mp[d][((i) + 1) * np + (j) + 1]
#define K1(d, i, j) jac->op.Kp[d][((i) + 1) * np + (j) + 1]
              PetscReal v = M1(1, iy, jy) * K1(0, ix, jx) + K1(1, iy, jy) * M1(0, ix, jx);
              if (dim == 3) v = M1(2, iz, jz) * v + K1(2, iz, jz) * M1(1, iy, jy) * M1(0, ix, jx);
              jac->LU[r * nt + s] = v;
#undef M1
#undef K1
            }
  info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)nt, (lapack_int)nt, jac->LU, (lapack_int)nt, jac->piv);
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrf of the dense patch matrix failed: %d", (int)info);
  jac->op.LU  = jac->LU;
  jac->op.piv = jac->piv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = b - A x / scale, the residual of a color. The surrogate's solves in single precision take it from the operator in
   float on the GPU (the mapped operator's factors in float: half the bytes of the pass that dominates the sweep); their
   own accuracy is float's, and a smoother inside a cycle sees residual equations, whose iterates are small. color >= 0:
   only the interior nodes of that color's patches need it (the in-place sweep), which the mapped operator forms patch by
   patch where it can (MatQBoxPatchResidual_Private(): one pass without atomics) */
static PetscErrorCode PCVPatchColorResidual(PC_VPatch *jac, PetscInt color, Vec b, Vec x, Vec w)
{
  const PetscBool single = (PetscBool)(jac->surrogate && jac->cuda && jac->precision == VP_PRECISION_SINGLE);
  PetscBool       done   = PETSC_FALSE;

  PetscFunctionBegin;
  if (jac->patchres && jac->scale == (PetscScalar)1.0 && color >= 0 && jac->surrogate && jac->cuda) PetscCall(MatQBoxPatchResidual_Private(jac->A, single, color, PETSC_FALSE, b, x, w, NULL, NULL, NULL, &done));
  if (done) {
    jac->patchran = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (jac->scale == (PetscScalar)1.0) { /* MatResidual(): the DMQBOX operator's in one pass where it can (laplacian.c) */
    if (single)
      PetscCall(MatQBoxResidualSingle_Private(jac->A, b, x, w));
    else
      PetscCall(MatResidual(jac->A, b, x, w));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (single)
    PetscCall(MatQBoxMultSingle_Private(jac->A, x, w));
  else
    PetscCall(MatMult(jac->A, x, w)); /* scale L x */
  PetscCall(VecScale(w, 1.0 / jac->scale));
  PetscCall(VecAYPX(w, -1.0, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the surrogate's sweep can work on the global vectors themselves (PCVPatchSweepColors_Private()) */
static PetscErrorCode PCVPatchInPlaceSurrogate(PC_VPatch *jac, Vec x, PetscBool *yes)
{
  PetscFunctionBegin;
  *yes = PETSC_FALSE;
  if (jac->surrogate && jac->cuda && (jac->local == PC_VPATCH_LOCAL_FDM || jac->local == PC_VPATCH_LOCAL_SCALED) && jac->type == PC_VPATCH_MULTIPLICATIVE) PetscCall(DMQBoxUseGlobalArrays_Private(jac->dm, x, yes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one pass over the colors on the device, x <- x + sum of patch corrections, where PCVPatchStepLocal() does not: on the
   global arrays of one rank, in place on them for the mapped variant's solves, or with the kernel global (the residual
   of the whole level by MatMult before each color) */
PetscErrorCode PCVPatchSweepColors_Private(PC_VPatch *jac, Vec b, Vec x, PetscBool reverse, PetscBool global, PetscBool zero)
{
  const VPGrid      *g  = &((DM_QBox *)jac->dm->data)->grid;
  PetscInt           nc = g->dim == 3 ? 8 : 4;
  const PetscScalar *ba, *xa, *dg = NULL;
  PetscScalar       *da;
  PetscBool          inplace;

  PetscFunctionBegin;
  PetscCall(PCVPatchInPlaceSurrogate(jac, x, &inplace));
  if (jac->cuda && jac->diagl) PetscCall(VecGetArrayReadAndMemType(jac->diagl, &dg, NULL)); /* local solvers cg and scaled: the operator's diagonal, ghosted (on one rank the global layout) */
  if (global) {
    /* one rank: the local box is the global vector. The kernels read b and x and add the corrections into x in
       place: patches of one color share no interior node, and a patch reads only its own nodes, so no patch of the
       color reads a value that another one writes. This skips the ghost updates of every color. */
    PetscScalar *xw;

    PetscCall(VecGetArrayReadAndMemType(b, &ba, NULL));
    PetscCall(VecGetArrayAndMemType(x, &xw, NULL));
    PetscCall(PetscLogGpuTimeBegin());
    for (PetscInt i = 0; i < nc; i++)
      PetscCall(VPPatchSmoothColor_CUDA(g, &jac->opw, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), PCVPatchColor(jac, nc, i, reverse), jac->kernel, jac->ppb, (PetscBool)(zero && i == 0), NULL, NULL, NULL, 0, NULL, ba, xw, xw, jac->scratch));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecRestoreArrayAndMemType(x, &xw));
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  } else if (inplace) {
    /* one rank, CUDA, the surrogate's solves: the ghosted box is the global vector, so each color's residual stays in
       w and the corrections go into x in place (patches of one color share no interior node, and the kernel reads only
       the residual): no ghost copies, half the vector passes of the general branch below. In 3D (stiffness only) one
       kernel per color forms each patch's residual from its cells and solves (MatQBoxPatchResidual_Private()): no
       operator application over the level, no residual vector */
    PetscScalar *xw;
    for (PetscInt i = 0; i < nc; i++) {
      const Vec r    = zero && i == 0 && !jac->d_prof ? b : jac->w; /* from x = 0 the first color's residual is b (its solve: the tuned kernel, without the profile surrogate) */
      PetscBool done = PETSC_FALSE;
      if (r != b && jac->patchres && ((jac->local == PC_VPATCH_LOCAL_SCALED && jac->diagl) || jac->local == PC_VPATCH_LOCAL_FDM) && jac->scale == (PetscScalar)1.0 && jac->d_pg &&
          !jac->d_pm) { /* the residual and the solves in one kernel (also on a rank of a gathered level that owns no cell: its diagonal's array is NULL) */
        PetscCall(MatQBoxPatchResidual_Private(jac->A, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), PCVPatchColor(jac, nc, i, reverse), PETSC_FALSE, b, x, x, &jac->sct, jac->d_pg, jac->local == PC_VPATCH_LOCAL_SCALED ? dg : NULL, &done));
        jac->patchran = (PetscBool)(jac->patchran || done);
      }
      if (done) continue;
      PetscCheck(!jac->d_prof, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", VP_PROFILE_KERNEL_ONLY);
      if (r != b) PetscCall(PCVPatchColorResidual(jac, PCVPatchColor(jac, nc, i, reverse), b, x, jac->w));
      PetscCall(VecGetArrayReadAndMemType(r, &ba, NULL));
      PetscCall(VecGetArrayAndMemType(x, &xw, NULL));
      PetscCall(PetscLogGpuTimeBegin());
      PetscCall(VPPatchSmoothColor_CUDA(g, NULL, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), PCVPatchColor(jac, nc, i, reverse), jac->kernel, jac->ppb, PETSC_FALSE, jac->d_pg, jac->d_pm, dg, jac->damp, jac->d_pw, ba, xw, xw, jac->scratch));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(VecRestoreArrayAndMemType(x, &xw));
      PetscCall(VecRestoreArrayReadAndMemType(r, &ba));
    }
  } else {
    /* several ranks, the surrogate's solves in 3D (stiffness only): each color's patches form their residuals from
       their cells and solve in one kernel (MatQBoxPatchResidualArrays_Private(), local), in place on x's ghosted copy,
       and after each group of colors the exchange of the values they changed (DMQBoxColorExchangeBegin_Private(), as
       PCVPatchStepLocal()): b and x into their ghosted copies once per pass, no operator application over the level
       and no pass over the level's vectors per color. The kernel reads and changes the nodes of its patches only, as the
       Cartesian one does, so the same exchanges keep every rank's copy current. */
    PetscBool fused = (PetscBool)(jac->cuda && jac->patchres && jac->surrogate && g->dim == 3 && (((jac->local == PC_VPATCH_LOCAL_SCALED || jac->local == PC_VPATCH_LOCAL_CG) && jac->diagl) || jac->local == PC_VPATCH_LOCAL_FDM) &&
                                  jac->scale == (PetscScalar)1.0 && jac->d_pg && !jac->d_pm); /* the same on every rank: the exchanges below are collective */
    if (fused) {
      const PetscInt gb = DMQBoxColorGroupBits_Private(jac->dm);
      DMQBoxGhosted  B, X;
      PetscBool      done = PETSC_FALSE;

      PetscCall(DMQBoxGhostedGet_Private(jac->dm, b, DMQBOX_GHOSTED_IN, PETSC_FALSE, &B));
      PetscCall(DMQBoxGhostedGet_Private(jac->dm, x, zero ? DMQBOX_GHOSTED_INOUT_ZERO : DMQBOX_GHOSTED_INOUT, PETSC_FALSE, &X)); /* zero: x = 0 (the callers set it) */
      for (PetscInt i = 0; i < nc; i++) {
        const PetscInt c = PCVPatchColor(jac, nc, i, reverse), next = i < nc - 1 ? PCVPatchColor(jac, nc, i + 1, reverse) : -1;
        PetscCall(MatQBoxPatchResidualArrays_Private(jac->A, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), c, PETSC_TRUE, B.a, X.a, X.a, &jac->sct, jac->d_pg, jac->local != PC_VPATCH_LOCAL_FDM ? dg : NULL, &done));
        if (!done) break;                            /* the operator cannot (MatQBoxPatchResidualCan()), for every color and on every rank: the path below */
        if (next < 0 || (next >> gb) != (c >> gb)) { /* the last color of its group */
          PetscCall(DMQBoxColorExchangeBegin_Private(jac->dm, c, X.mt, X.a));
          PetscCall(DMQBoxColorExchangeEnd_Private(jac->dm, c, X.mt, X.a));
        }
      }
      PetscCall(DMQBoxGhostedRestore_Private(jac->dm, &X));
      PetscCall(DMQBoxGhostedRestore_Private(jac->dm, &B));
      jac->patchran = (PetscBool)(jac->patchran || done);
      fused         = done;
    }
    PetscCheck(fused || !jac->d_prof, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", VP_PROFILE_KERNEL_ONLY);
    PetscCheck(fused || !(jac->local == PC_VPATCH_LOCAL_CG && jac->precision == VP_PRECISION_SINGLE), PETSC_COMM_SELF, PETSC_ERR_SUP,
               "PCVPATCH local solver cg in single precision: the patch kernel cannot run on this operator: use -pc_vpatch_precision double");
    if (!fused) PetscCall(PCVPatchGetLocal_Private(jac, PETSC_TRUE, PETSC_TRUE));
    for (PetscInt i = 0; i < nc && !fused; i++) { /* kernel global: the residual of the whole level, ghosted, then the solves */
      PetscCall(PCVPatchColorResidual(jac, -1, b, x, jac->w));
      PetscCall(DMGlobalToLocal(jac->dm, jac->w, INSERT_VALUES, jac->bl));
      PetscCall(VecSet(jac->dl, 0.0));
      PetscCall(VecGetArrayReadAndMemType(jac->bl, &ba, NULL));
      PetscCall(VecGetArrayReadAndMemType(jac->xl, &xa, NULL));
      PetscCall(VecGetArrayAndMemType(jac->dl, &da, NULL));
      if (jac->cuda && jac->local == PC_VPATCH_LOCAL_CG && jac->surrogate) {
        const PetscReal *cggeo = jac->d_pgeo; /* with a layer of cells below this rank's; else the DM's own, asked for here: a pointer kept from the set-up could be freed by the DM (DMQBoxGetGeometryFloat_Private()) */
        if (!cggeo) PetscCall(DMQBoxGetGeometry_Private(jac->dm, NULL, &cggeo));
        PetscCall(PetscLogGpuTimeBegin());
        PetscCall(VPPatchCGColor_CUDA(g, &jac->cgt, PCVPatchColor(jac, nc, i, reverse), jac->d_pg, cggeo, dg, ba, da));
        PetscCall(PetscLogGpuTimeEnd());
      } else if (jac->cuda) {
        PetscCall(PetscLogGpuTimeBegin());
        PetscCall(VPPatchSmoothColor_CUDA(g, jac->surrogate ? NULL : &jac->opw, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), PCVPatchColor(jac, nc, i, reverse), jac->kernel, jac->ppb, PETSC_FALSE, jac->d_pg, jac->d_pm, dg, jac->damp,
                                          jac->d_pw, ba, xa, da, jac->scratch)); /* the surrogate carries its weights per patch */
        PetscCall(PetscLogGpuTimeEnd());
      } else
        PetscCall(VPPatchSmoothColor_CPU(g, &jac->op, &jac->plocal, PCVPatchColor(jac, nc, i, reverse), PETSC_FALSE, ba, NULL, da, jac->work)); /* mapped DMQBOX on the CPU */
      PetscCall(VecRestoreArrayAndMemType(jac->dl, &da));
      PetscCall(VecRestoreArrayReadAndMemType(jac->xl, &xa));
      PetscCall(VecRestoreArrayReadAndMemType(jac->bl, &ba));
      PetscCall(DMLocalToGlobal(jac->dm, jac->dl, ADD_VALUES, x));
    }
    if (!fused) PetscCall(PCVPatchRestoreLocal_Private(jac));
  }
  if (dg) PetscCall(VecRestoreArrayReadAndMemType(jac->diagl, &dg));
  if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_SCALED) { /* one preconditioner application per patch: a CG step without its true operator */
    const PetscLogDouble f = VPFlopsPatches(g) * (VPFlopsPatchCG(g->dim, g->k, 1) - (g->dim == 2 ? 4 : 8) * VPFlopsMappedCell(g->dim, g->k));
    if (jac->cuda)
      PetscCall(PetscLogGpuFlops(f));
    else
      PetscCall(PetscLogFlops(f));
  } else if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_CG) {
    if (jac->cuda)
      PetscCall(PetscLogGpuFlops(VPFlopsPatches(g) * VPFlopsPatchCG(g->dim, g->k, jac->localits)));
    else
      PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCG(g->dim, g->k, jac->localits)));
  } else if (jac->cuda)
    PetscCall(PetscLogGpuFlops(PCVPatchFlopsGPU_Private(jac, g, zero)));
  else
    PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCPU(g->dim, g->k)));
  PetscCall(PCVPatchBoundary_Private(jac, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The patches of one color on the vertices of the sub-box [lo, hi) (cell indices, the patch's vertex is its cells'
   lower corner) of this rank's, in place in xl */
static PetscErrorCode PCVPatchColorBox(PC_VPatch *jac, PetscMemType mt, PetscInt c, PetscBool zero, const PetscInt lo[3], const PetscInt hi[3], const PetscScalar *ba, PetscScalar *xa)
{
  VPGrid g = ((DM_QBox *)jac->dm->data)->grid;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    if (hi[d] <= lo[d]) PetscFunctionReturn(PETSC_SUCCESS);
    g.cs[d] = lo[d];
    g.cm[d] = hi[d] - lo[d];
  }
  if (PetscMemTypeDevice(mt)) {
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPPatchSmoothColor_CUDA(&g, &jac->opw, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), c, jac->kernel, jac->ppb, zero, NULL, NULL, NULL, 0, NULL, ba, xa, xa, jac->scratch));
    PetscCall(PetscLogGpuTimeEnd());
  } else
    PetscCall(VPPatchSmoothColor_CPU(&g, &jac->op, NULL, c, PETSC_FALSE, ba, xa, xa, jac->work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step in the ghosted local vector (several ranks, or the CPU path; not the kernel global): b and x are brought
   into the local boxes once, each color's patches are solved in place in xl, and one exchange after each group of
   colors (its packed values and a star forest, DMQBoxColorExchangeBegin_Private()) brings the values that the other
   ranks' patches changed into every local box that holds them, owned or ghost. A group is a run of consecutive colors
   of the pass that agree along every direction the process grid cuts (DMQBoxColorGroupBits_Private(): no patch of one
   of them reads what another rank's patch of another changed), so slabs along the slowest direction exchange twice
   per pass, not 2^dim times. The iterates are those of one rank. Relaxed (-pc_vpatch_ranks relaxed): no exchange
   inside a pass; the local-to-global copy keeps each rank's own nodes. */
static PetscErrorCode PCVPatchStepLocal(PC_VPatch *jac, Vec b, Vec x, PetscBool fwd, PetscBool bwd, PetscBool zero)
{
  const VPGrid      *g  = &((DM_QBox *)jac->dm->data)->grid;
  PetscInt           nc = g->dim == 3 ? 8 : 4, gb = DMQBoxColorGroupBits_Private(jac->dm);
  const PetscScalar *ba;
  PetscScalar       *xa;
  PetscMemType       mt, xmt;
  PetscInt           all[2][3], in[2][3];
  DMQBoxGhosted      B, X;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    /* the patches of vertices cs, cs + 1 change nodes that the rank below holds, that of cs + cm - 1 nodes of the rank
       above (ownership on multiples of k, ghost width k): the inner box [in[0], in[1]) changes none */
    all[0][d] = g->cs[d];
    all[1][d] = g->cs[d] + g->cm[d];
    in[0][d]  = PetscMin(g->cs[d] + (d < g->dim && g->cs[d] > 0 ? 2 : 0), all[1][d]);
    in[1][d]  = PetscMax(all[1][d] - (d < g->dim && all[1][d] < g->N[d] ? 1 : 0), in[0][d]);
  }
  PetscCall(DMQBoxGhostedGet_Private(jac->dm, b, DMQBOX_GHOSTED_IN, PETSC_FALSE, &B));
  PetscCall(DMQBoxGhostedGet_Private(jac->dm, x, zero ? DMQBOX_GHOSTED_INOUT_ZERO : DMQBOX_GHOSTED_INOUT, PETSC_FALSE, &X)); /* zero: x = 0 (the callers set it) */
  ba  = B.a;
  mt  = B.mt;
  xa  = X.a;
  xmt = X.mt;
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscBool pz = (PetscBool)(zero && (pass == 0 || !fwd)); /* x = 0 at the start of this pass */

    if (!(pass ? bwd : fwd)) continue;
    if (jac->ranks == PC_VPATCH_RANKS_RELAXED && pass == 1 && fwd) { /* the owners' values of the forward pass, everywhere */
      PetscCall(DMQBoxGhostedUpdate_Private(jac->dm, &X));
      xa  = X.a;
      xmt = X.mt;
    }
    for (PetscInt i = 0; i < nc; i++) {
      PetscInt  c = PCVPatchColor(jac, nc, i, (PetscBool)pass), next = i < nc - 1 ? PCVPatchColor(jac, nc, i + 1, (PetscBool)pass) : -1;
      PetscBool z0   = (PetscBool)(pz && i == 0);                          /* x = 0 before the step's first color */
      PetscBool last = (PetscBool)(next < 0 || (next >> gb) != (c >> gb)); /* the last color of its group in this pass */

      if (jac->ranks == PC_VPATCH_RANKS_RELAXED || !last) { /* no exchange: relaxed, or inside a group */
        PetscCall(PCVPatchColorBox(jac, mt, c, z0, all[0], all[1], ba, xa));
        continue;
      }
      if (jac->overlap) { /* the patches whose values other ranks hold, the group's exchange, the others while it travels */
        for (PetscInt d = 0; d < g->dim; d++)
          for (PetscInt side = 0; side < 2; side++) { /* slabs of direction d: inner range before d, all after */
            PetscInt lo[3], hi[3];
            for (PetscInt e = 0; e < 3; e++) {
              lo[e] = e < d ? in[0][e] : g->cs[e];
              hi[e] = e < d ? in[1][e] : g->cs[e] + g->cm[e];
            }
            if (side == 0)
              hi[d] = in[0][d];
            else
              lo[d] = in[1][d];
            PetscCall(PCVPatchColorBox(jac, mt, c, z0, lo, hi, ba, xa));
          }
        PetscCall(DMQBoxColorExchangeBegin_Private(jac->dm, c, xmt, xa));
        PetscCall(PCVPatchColorBox(jac, mt, c, z0, in[0], in[1], ba, xa));
      } else {
        PetscCall(PCVPatchColorBox(jac, mt, c, z0, all[0], all[1], ba, xa));
        PetscCall(DMQBoxColorExchangeBegin_Private(jac->dm, c, xmt, xa));
      }
      PetscCall(DMQBoxColorExchangeEnd_Private(jac->dm, c, xmt, xa));
    }
    if (PetscMemTypeDevice(mt))
      PetscCall(PetscLogGpuFlops(PCVPatchFlopsGPU_Private(jac, g, pz)));
    else
      PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCPU(g->dim, g->k)));
  }
  PetscCall(DMQBoxGhostedRestore_Private(jac->dm, &X));
  PetscCall(DMQBoxGhostedRestore_Private(jac->dm, &B));
  PetscCall(PCVPatchBoundary_Private(jac, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* additive: y = damping * sum_v R_v^T A_v^{-1} R_v r (boundary rows: y = r), divided by the operator's scale */
PetscErrorCode PCVPatchAdditiveContinuous_Private(PC_VPatch *jac, Vec r, Vec y)
{
  const VPGrid      *g = &((DM_QBox *)jac->dm->data)->grid;
  const PetscScalar *ra;
  PetscScalar       *da;

  PetscFunctionBegin;
  PetscCall(PCVPatchGetLocal_Private(jac, PETSC_FALSE, PETSC_TRUE));
  PetscCall(DMGlobalToLocal(jac->dm, r, INSERT_VALUES, jac->bl));
  PetscCall(VecSet(jac->dl, 0.0));
  PetscCall(VecGetArrayRead(jac->bl, &ra));
  PetscCall(VecGetArray(jac->dl, &da));
  PetscCall(VPPatchSmoothColor_CPU(g, &jac->op, jac->surrogate ? &jac->plocal : NULL, -1, PETSC_TRUE, ra, NULL, da, jac->work));
  PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCPU(g->dim, g->k)));
  PetscCall(VecRestoreArray(jac->dl, &da));
  PetscCall(VecRestoreArrayRead(jac->bl, &ra));
  PetscCall(VecSet(y, 0.0));
  PetscCall(DMLocalToGlobal(jac->dm, jac->dl, ADD_VALUES, y));
  PetscCall(PCVPatchRestoreLocal_Private(jac));
  PetscCall(VecScale(y, jac->damping));
  PetscCall(PCVPatchBoundary_Private(jac, r, y));
  if (jac->scale != (PetscScalar)1.0) PetscCall(VecScale(y, 1.0 / jac->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the set-up of the continuous space's patches, Cartesian or (jac->surrogate, set by the mapped variant) mapped: the
   1D patch matrices and their eigenpairs (on a mapped box of the unit patch: the surrogate's factors carry the geometry),
   the CUDA kernels' reference data, the buffers of the kernel variants, the color exchanges of several ranks */
PetscErrorCode PCVPatchSetUpContinuous_Private(PC pc)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;
  DM         dm  = jac->dm;
  DM_QBox   *q   = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  jac->op.dim = q->dim;
  jac->op.k   = q->degree;
  for (PetscInt d = 0; d < q->dim; d++) PetscCall(PCVPatchSetUpDirection_Private(&jac->op, &q->basis, jac->surrogate ? NULL : &jac->opw, d, jac->surrogate ? 1.0 : q->grid.h[d]));
  if (jac->local == PC_VPATCH_LOCAL_DENSE && !jac->surrogate) PetscCall(PCVPatchSetUpDense(jac));
  PetscCall(PetscMalloc1(VPPatchWorkSize(q->dim, q->degree), &jac->work));
  if (!jac->cuda && jac->kernelset) PetscCall(PetscInfo(pc, "-pc_vpatch_kernel and -pc_vpatch_patches_per_block choose GPU kernels; the CPU path runs here and ignores them\n"));
  PetscCheck(jac->cuda || jac->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVPATCH -pc_vpatch_precision single runs on the GPU only: use -dm_vec_type cuda, or double precision");
  if (jac->cuda) {
    PetscInt  ni = 2 * q->degree - 1, dim = q->dim;
    VPPatchOp hat;

    PetscCheck(jac->type == PC_VPATCH_MULTIPLICATIVE && jac->local != PC_VPATCH_LOCAL_DENSE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVPATCH on CUDA vectors runs -pc_vpatch_type multiplicative with -pc_vpatch_local_solver fdm, cg or scaled; the %s %s variant runs on the CPU only (-dm_vec_type standard)", PCVPatchTypes[jac->type], PCVPatchLocalSolvers[jac->local]);
    PetscCheck(!(jac->surrogate && jac->local == PC_VPATCH_LOCAL_CG) || jac->precision == VP_PRECISION_DOUBLE || (dim == 3 && jac->patchres && q->fusedres && !q->geofly && jac->opw.mass == 0), PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVPATCH local solver cg on the GPU computes in single precision only in the patch kernel (3D, stiffness only, stored factors, -pc_vpatch_patch_residual and -dm_qbox_fused_residual on): use -pc_vpatch_precision double");
    /* the kernels take the reference matrices (h = 1) and scale them by the cell sizes and the weights (vpatch.cu) */
    PetscCall(PCVPatchSetUpDirection_Private(&hat, &q->basis, NULL, 0, 1.0));
    PetscCall(VPPatchSetUp_CUDA(q->degree, q->basis.M, q->basis.K, hat.S[0], hat.lam[0]));
    if (jac->kernel == PC_VPATCH_KERNEL_SEPARATE) { /* at most prod_d (cm_d/2 + 1) patches of one color */
      size_t n = 1;
      for (PetscInt d = 0; d < dim; d++) n *= (size_t)(q->grid.cm[d] / 2 + 1) * (size_t)ni;
      PetscCall(VPDeviceAlloc_Private(n, &jac->scratch));
    }
    if (jac->kernel == PC_VPATCH_KERNEL_GLOBAL) PetscCall(DMCreateGlobalVector(dm, &jac->w));
  }
  if (!q->samelayout && jac->type == PC_VPATCH_MULTIPLICATIVE && (jac->surrogate ? jac->cuda && jac->patchres && q->dim == 3 : !(jac->cuda && jac->kernel == PC_VPATCH_KERNEL_GLOBAL) && jac->ranks == PC_VPATCH_RANKS_EXACT))
    for (PetscInt c = 0; c < (1 << q->dim); c++) PetscCall(DMQBoxColorExchangeSetUp_Private(dm, c)); /* several ranks: the exchange of each color (PCVPatchStepLocal(), the mapped patch kernel's sweep) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step: in the ghosted local vector (several ranks, or the CPU path; PCVPatchStepLocal()), or by the kernels on the
   global arrays of one rank, or with the kernel global (each color's residual by MatMult) */
static PetscErrorCode PCVPatchStep_Cartesian(PC_VPatch *jac, Vec b, Vec x, PetscBool fwd, PetscBool bwd, PetscBool zero)
{
  PetscBool global = PETSC_FALSE;

  PetscFunctionBegin;
  if (jac->kernel != PC_VPATCH_KERNEL_GLOBAL) PetscCall(DMQBoxUseGlobalArrays_Private(jac->dm, b, &global));
  if (!global && !(jac->cuda && jac->kernel == PC_VPATCH_KERNEL_GLOBAL))
    PetscCall(PCVPatchStepLocal(jac, b, x, fwd, bwd, zero));
  else {
    if (fwd) PetscCall(PCVPatchSweepColors_Private(jac, b, x, PETSC_FALSE, global, zero));
    if (bwd) PetscCall(PCVPatchSweepColors_Private(jac, b, x, PETSC_TRUE, global, (PetscBool)(zero && !fwd)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Cartesian box (constant coefficient): exact local solves of mass M + stiffness K by fast diagonalization */
const PCVPatchVariant PCVPatchVariantCartesian = {"Cartesian", PETSC_TRUE, PETSC_TRUE, PCVPatchSetUpContinuous_Private, PCVPatchStep_Cartesian, PCVPatchAdditiveContinuous_Private};
