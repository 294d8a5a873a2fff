/*
  PCVPATCH: the multiplicative colored vertex-patch smoother with exact local solves by fast
  diagonalization, for the operators of a DMQBOX (host glue; the kernel is vpatch_cpu.c).
  This file holds what every variant shares: the operator's description (PCVPatchGetOperator()), the common set-up
  and the choice of the variant (Cartesian, mapped, DG: include/petscvpatch/private/pcvpatchimpl.h), PCApply,
  PCApplyRichardson, options, view and the setters.

  Provides PCApply (zero initial guess), PCApplyTranspose (reversed colors), PCApplyRichardson
  (in-place sweeps from the current iterate, what a KSPRICHARDSON level smoother of PCMG uses, with
  no separate global residual), PCView and PCSetFromOptions.

  Parallel: each rank processes the patches of the vertices at the lower corners of its cells; the
  ghost values are updated between colors, so the sweep is exactly multiplicative on any number of
  ranks and the iterates do not depend on the partition.
*/
#include <petscvpatch/private/pcvpatchimpl.h>
#include <petscsf.h>

const char *const PCVPatchSweeps[]       = {"forward", "backward", "symmetric", "PCVPatchSweep", "PC_VPATCH_SWEEP_", NULL};
const char *const PCVPatchTypes[]        = {"multiplicative", "additive", "PCVPatchType", "PC_VPATCH_", NULL};
const char *const PCVPatchKernels[]      = {"global", "separate", "fused", "PCVPatchKernel", "PC_VPATCH_KERNEL_", NULL};
const char *const VPPrecisions[]         = {"double", "single", "VPPrecision", "VP_PRECISION_", NULL};
const char *const PCVPatchLocalSolvers[] = {"fdm", "dense", "cg", "scaled", "PCVPatchLocalSolver", "PC_VPATCH_LOCAL_", NULL};
const char *const PCVPatchRanksTypes[]   = {"exact", "relaxed", "PCVPatchRanks", "PC_VPATCH_RANKS_", NULL};
const char *const PCVPatchSurrogates[]   = {"pointmax", "cellmax", "mean", "profile", "PCVPatchSurrogate", "PC_VPATCH_SURROGATE_", NULL};
const char *const PCVPatchCorrections[]  = {"none", "mixed", "all", "PCVPatchCorrection", "PC_VPATCH_CORRECTION_", NULL};

/* The DMQBOX of the preconditioning matrix and its weights: Pmat = w.mass M + w.stiff K (M the mass matrix, K the
   Laplacian, on a mapped box -div(a grad u), on the discontinuous space the SIPG operator), both weights >= 0.
   The matrix-free operator of a DMQBOX says so itself (it keeps its description, MatQBoxLaplacianGetInfo_Private()); any
   other matrix (assembled, or a user's MATSHELL on a DMQBOX) is compared with w.mass M + w.stiff K on a random vector,
   the weights fitted by least squares. Whatever the patch solves cannot represent is refused, never smoothed as if it
   were something else. */
static PetscErrorCode PCVPatchGetOperator(PC pc, DM *dm, VPWeights *w)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  Mat         A    = pc->pmat;
  DM          mdm = NULL, pdm = NULL;
  PetscScalar t;
  const char *other;
  PetscBool   isqbox = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatQBoxLaplacianGetInfo_Private(A, &mdm, w, &t, &other));
  if (mdm) {
    PetscCheck(!other, comm, PETSC_ERR_SUP,
               "PCVPATCH: the operator is a DMQBOX operator changed by %s; the vertex-patch solves represent mass M + stiffness K with weights >= 0 (MatScale(), MatAXPY() of the DM's operators) only: precondition that operator, or use another "
               "preconditioner (e.g. -mg_levels_pc_type jacobi)",
               other);
    PetscCheck(t == (PetscScalar)0.0, comm, PETSC_ERR_SUP,
               "PCVPATCH: the operator is a DMQBOX operator shifted by %g (MatShift()); the fast-diagonalization patch solves are exact for mass M + stiffness K only, since the identity does not share the eigenvectors of the 1D patch matrices "
               "(a reaction term is the mass matrix: MatAXPY() with DMCreateMassMatrix()'s, or DMQBoxSetOperatorWeights()); or use another smoother (e.g. -mg_levels_pc_type jacobi) for a shifted operator",
               (double)PetscRealPart(t));
    PetscCheck(w->mass >= 0 && w->stiff >= 0 && w->mass + w->stiff > 0 && !PetscIsInfOrNanReal(w->mass + w->stiff), comm, PETSC_ERR_SUP,
               "PCVPATCH: the operator is %g M + %g K (mass and stiffness of a DMQBOX); the vertex-patch smoother needs both weights >= 0 and not both 0 (MatScale() by a positive number)", (double)w->mass, (double)w->stiff);
    *dm = mdm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCGetDM(pc, &pdm));
  if (pdm) PetscCall(PetscObjectTypeCompare((PetscObject)pdm, DMQBOX, &isqbox));
  if (!isqbox) {
    PetscCall(MatGetDM(A, &pdm));
    if (pdm) PetscCall(PetscObjectTypeCompare((PetscObject)pdm, DMQBOX, &isqbox));
  }
  PetscCheck(isqbox, comm, PETSC_ERR_ARG_WRONG, "PCVPATCH needs an operator with tensor-product structure: a matrix from DMCreateMatrix() of a %s, or a KSP with KSPSetDM() of a %s; this %s matrix has %s", DMQBOX, DMQBOX, ((PetscObject)A)->type_name,
             pdm ? "a DM of another type" : "no DM");
  {
    DM_QBox    *q = (DM_QBox *)pdm->data;
    Mat         L, M = NULL;
    Vec         x, y, z, m;
    PetscRandom rnd;
    PetscScalar yz, zz, ym = 0, zm = 0, mm = 1;
    PetscReal   diff, ny;
    PetscInt    ml, nl;
    VPWeights   stiff = {0.0, 1.0}, mass = {1.0, 0.0};
    PetscBool   hasmass;

    if (q->dg)
      PetscCall(MatCreateQBoxSIPG_Private(pdm, &L));
    else
      PetscCall(MatCreateQBoxOperator_Private(pdm, &stiff, &L));
    if (!q->dg) PetscCall(MatCreateQBoxOperator_Private(pdm, &mass, &M)); /* the mass term: the continuous space */
    PetscCall(MatGetLocalSize(A, &ml, NULL));
    PetscCall(MatGetLocalSize(L, &nl, NULL));
    PetscCheck(ml == nl, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVPATCH: the operator has %" PetscInt_FMT " local rows, but the operators of the PC's DMQBOX have %" PetscInt_FMT ": the operator does not belong to this DM", ml, nl);
    PetscCall(MatCreateVecs(L, &x, &z));
    PetscCall(VecDuplicate(z, &y));
    PetscCall(VecDuplicate(z, &m));
    PetscCall(PetscRandomCreate(comm, &rnd));
    PetscCall(PetscRandomSetSeed(rnd, 0x5eed));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMult(L, x, z));
    PetscCall(VecDot(y, z, &yz));
    PetscCall(VecDot(z, z, &zz));
    if (M) { /* least squares: y ~ a m + s z */
      PetscScalar det;
      PetscCall(MatMult(M, x, m));
      PetscCall(VecDot(y, m, &ym));
      PetscCall(VecDot(z, m, &zm));
      PetscCall(VecDot(m, m, &mm));
      det      = zz * mm - zm * zm;
      w->stiff = PetscRealPart((yz * mm - ym * zm) / det);
      w->mass  = PetscRealPart((ym * zz - yz * zm) / det);
    } else {
      w->stiff = PetscRealPart(yz / zz);
      w->mass  = 0.0;
    }
    PetscCall(VecNorm(y, NORM_2, &ny));
    PetscCall(VecAXPY(y, -w->stiff, z));
    if (M) PetscCall(VecAXPY(y, -w->mass, m));
    PetscCall(VecNorm(y, NORM_2, &diff));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&m));
    PetscCall(MatDestroy(&L));
    hasmass = (PetscBool) !!M;
    PetscCall(MatDestroy(&M));
    PetscCheck(diff <= 1e-10 * ny, comm, PETSC_ERR_ARG_WRONG,
               "PCVPATCH: this %s operator is not %s of the DMQBOX: on a random vector x, |A x - (a M + s K) x| / |A x| = %g with the best fit a = %g, s = %g. The vertex-patch smoother solves the DMQBOX's operators: use the matrices of "
               "DMCreateMatrix() and DMCreateMassMatrix() (MatScale(), MatAXPY()), or another preconditioner",
               ((PetscObject)A)->type_name, hasmass ? "mass M + stiffness K" : "its operator K up to a scale", (double)(diff / ny), (double)w->mass, (double)w->stiff);
    PetscCheck(w->mass >= -1e-12 * w->stiff && w->stiff >= -1e-12 * w->mass && w->mass + w->stiff > 0, comm, PETSC_ERR_SUP,
               "PCVPATCH: the operator is %g M + %g K (mass and stiffness of a DMQBOX); the vertex-patch smoother needs both weights >= 0 and not both 0", (double)w->mass, (double)w->stiff);
    w->mass  = PetscMax(w->mass, 0.0);
    w->stiff = PetscMax(w->stiff, 0.0);
    if (PetscAbsReal(w->mass) <= 1e-12 * w->stiff) w->mass = 0.0; /* the fit's round-off: the Laplacian itself */
  }
  *dm = pdm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_VPatch(PC pc)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&jac->w));
  PetscCall(VecDestroy(&jac->dcorr));
  PetscCall(VecDestroy(&jac->bs));
  PetscCall(VecDestroy(&jac->r));
  for (PetscInt d = 0; d < 3; d++) {
    PetscCall(VPDGPatch1DDestroy(&jac->dgp[d]));
    PetscCall(VPDeviceFree_Private(&jac->d_dgQ[d]));
    PetscCall(VPDeviceFree_Private(&jac->d_dglam[d]));
  }
  PetscCall(PetscFree(jac->dgref));
  PetscCall(MatDestroy(&jac->Adg));
  PetscCall(PetscFree(jac->work));
  PetscCall(PetscFree2(jac->LU, jac->piv));
  PetscCall(VPDeviceFree_Private(&jac->scratch));
  PetscCall(PetscFree(jac->pg));
  PetscCall(PetscFree2(jac->pLU, jac->ppiv));
  PetscCall(PetscFree(jac->pgeo));
  PetscCall(PetscFree(jac->pdiag));
  PetscCall(VecDestroy(&jac->diagl));
  PetscCall(VPDeviceFree_Private(&jac->d_pgeo));
  PetscCall(PetscMemzero(&jac->plocal, sizeof(jac->plocal)));
  PetscCall(VPDeviceFree_Private(&jac->d_pg));
  PetscCall(VPDeviceFree_Private(&jac->d_prof));
  PetscCall(PetscFree(jac->prof));
  PetscCall(PetscFree(jac->pm));
  PetscCall(VPDeviceFree_Private(&jac->d_pm));
  PetscCall(PetscFree(jac->pw));
  PetscCall(VPDeviceFree_Private(&jac->d_pw));
  jac->op.LU  = NULL;
  jac->op.piv = NULL;
  PetscCall(DMDestroy(&jac->dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ranks started with different options would otherwise hang (a forward sweep on one rank, backward on another) or fail
   in an exchange far from the cause: the settings that shape a sweep must agree */
static PetscErrorCode PCVPatchCheckSameOnRanks(PC pc)
{
  PC_VPatch        *jac     = (PC_VPatch *)pc->data;
  const char *const names[] = {"-pc_vpatch_type",   "-pc_vpatch_sweep",   "-pc_vpatch_local_solver", "-pc_vpatch_local_its", "-pc_vpatch_surrogate", "-pc_vpatch_precision", "-pc_vpatch_kernel",        "-pc_vpatch_patches_per_block",
                               "-pc_vpatch_ranks",  "-pc_vpatch_overlap", "-pc_vpatch_correction",   "-pc_vpatch_damping",   "-pc_vpatch_dg_lines",  "-pc_vpatch_colors",    "-pc_vpatch_colors",        "-pc_vpatch_colors",
                               "-pc_vpatch_colors", "-pc_vpatch_colors",  "-pc_vpatch_colors",       "-pc_vpatch_colors",    "-pc_vpatch_colors",    "-pc_vpatch_colors",    "-pc_vpatch_local_damping", "-pc_vpatch_local_damping_steps"};
  PetscReal         v[24];

  PetscFunctionBegin;
  v[0]  = (PetscReal)jac->type;
  v[1]  = (PetscReal)jac->sweep;
  v[2]  = (PetscReal)jac->local;
  v[3]  = (PetscReal)jac->localits;
  v[4]  = (PetscReal)jac->surtype;
  v[5]  = (PetscReal)jac->precision;
  v[6]  = (PetscReal)jac->kernel;
  v[7]  = (PetscReal)jac->ppb;
  v[8]  = (PetscReal)jac->ranks;
  v[9]  = (PetscReal)jac->overlap;
  v[10] = (PetscReal)jac->correction;
  v[11] = jac->damping;
  v[12] = (PetscReal)jac->dglines;
  v[13] = (PetscReal)jac->norder;
  for (PetscInt i = 0; i < 8; i++) v[14 + i] = i < jac->norder ? (PetscReal)jac->order[i] : -1;
  v[22] = jac->localdamp;
  v[23] = (PetscReal)PCVPatchDampSteps(jac);
  PetscCall(VPCheckSameOnRanks_Private(PetscObjectComm((PetscObject)pc), "PCVPATCH", (PetscInt)PETSC_STATIC_ARRAY_LENGTH(v), v, names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_VPatch(PC pc)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;
  DM         dm  = NULL;
  DM_QBox   *q;

  PetscFunctionBegin;
  PetscCall(PCReset_VPatch(pc));
  PetscCall(PCVPatchCheckSameOnRanks(pc));
  PetscCall(PetscLogEventBegin(VPATCH_PatchSetUp, pc, 0, 0, 0));
  PetscCall(PCVPatchGetOperator(pc, &dm, &jac->opw));
  q            = (DM_QBox *)dm->data;
  jac->variant = q->dg ? &PCVPatchVariantDG : DMQBoxIsGeneral_Private(q) ? &PCVPatchVariantMapped : &PCVPatchVariantCartesian;
  PetscCheck(jac->opw.mass == 0 || jac->variant->mass, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVPATCH: a mass term on the discontinuous space is not implemented yet (the continuous space has it)");
  if (!jac->variant->weights) { /* these kernels take the operator over its weights' sum: they smooth with b / scale */
    jac->scale = jac->opw.mass + jac->opw.stiff;
    jac->opw.mass /= PetscRealPart(jac->scale);
    jac->opw.stiff /= PetscRealPart(jac->scale);
  } else
    jac->scale = 1.0; /* the weights go into the kernels: no copy of b / scale */
  jac->dscale = jac->opw.mass + jac->opw.stiff;
  for (PetscInt d = 0; d < q->dim; d++)
    PetscCheck(q->cells[d] >= 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP,
               "PCVPATCH needs interior vertices, i.e. at least 2 cells per direction, but this DMQBOX level has %" PetscInt_FMT " cell in direction %" PetscInt_FMT
               ": refine the mesh, or, as the coarse solver of PCMG, use fewer levels (-pc_mg_levels) so that the coarsest level keeps 2 cells per direction, or another coarse solver (-mg_coarse_pc_type lu)",
               q->cells[d], d);
  PetscCall(PetscObjectReference((PetscObject)dm));
  jac->dm = dm;
  jac->A  = pc->pmat;
  PetscCall(DMQBoxIsCUDA_Private(dm, &jac->cuda));
  PetscCheck(!jac->norder || jac->norder == (PetscInt)1 << q->dim, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "PCVPATCH -pc_vpatch_colors: %" PetscInt_FMT " colors given, but a %" PetscInt_FMT "D DMQBOX has %d: give each of 0..%d once",
             jac->norder, q->dim, 1 << q->dim, (1 << q->dim) - 1);
  jac->surrogate = PETSC_FALSE;
  if (jac->damping <= 0) jac->damping = q->dim == 3 ? 0.125 : 0.25; /* additive: every DoF of an inner cell lies in 2^d patches */
  if (jac->scale != (PetscScalar)1.0) PetscCall(DMCreateGlobalVector(dm, &jac->bs));
  PetscCall(jac->variant->setup(pc));
  PetscCall(PetscLogEventEnd(VPATCH_PatchSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghosted work vectors of an apply, from the DM's pool of local vectors (shared with the level's operator and
   transfers, so that a level holds two or three ghosted vectors, not one set per object) */
PetscErrorCode PCVPatchGetLocal_Private(PC_VPatch *jac, PetscBool x, PetscBool d)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(jac->dm, &jac->bl));
  if (x) PetscCall(DMGetLocalVector(jac->dm, &jac->xl));
  if (d) PetscCall(DMGetLocalVector(jac->dm, &jac->dl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVPatchRestoreLocal_Private(PC_VPatch *jac)
{
  PetscFunctionBegin;
  PetscCall(DMRestoreLocalVector(jac->dm, &jac->bl));
  if (jac->xl) PetscCall(DMRestoreLocalVector(jac->dm, &jac->xl));
  if (jac->dl) PetscCall(DMRestoreLocalVector(jac->dm, &jac->dl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owned Dirichlet rows are solved exactly: x_B = b_B / dscale */
PetscErrorCode PCVPatchBoundary_Private(PC_VPatch *jac, Vec b, Vec x)
{
  const VPGrid      *g = &((DM_QBox *)jac->dm->data)->grid;
  const PetscScalar *ba;
  PetscScalar       *xa;
  PetscInt           i = 0;
  PetscMemType       mt;

  PetscFunctionBegin;
  PetscCall(VecGetArrayReadAndMemType(b, &ba, &mt));
  PetscCall(VecGetArrayAndMemType(x, &xa, NULL));
  if (PetscMemTypeDevice(mt))
    PetscCall(VPOwnedBoundary_CUDA(g, 1.0 / jac->dscale, ba, xa, PETSC_FALSE));
  else {
    for (PetscInt pz = g->xs[2]; pz < g->xs[2] + g->xm[2]; pz++)
      for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
        for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++, i++) {
          PetscInt p[3] = {px, py, pz};
          if (VPGridIsBoundary(g, p)) xa[i] = ba[i] / jac->dscale;
        }
  }
  PetscCall(VecRestoreArrayAndMemType(x, &xa));
  PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the flops of one pass over the colors by the GPU kernels; zero: from x = 0, where the first color's fused kernels
   skip the residual (VPPatchZeroFirst_CUDA(); about 1/2^d of the patches) */
PetscLogDouble PCVPatchFlopsGPU_Private(PC_VPatch *jac, const VPGrid *g, PetscBool zero)
{
  PetscBool skip = (PetscBool)(zero && jac->kernel == PC_VPATCH_KERNEL_FUSED && VPPatchZeroFirst_CUDA(g->dim, g->k, (PetscBool)(jac->precision == VP_PRECISION_SINGLE)));
  return VPFlopsPatches(g) * (VPFlopsPatchGPU(g->dim, g->k) - (skip ? VPFlopsPatchGPUResidual(g->dim, g->k) / (1 << g->dim) : 0));
}

/* one smoothing step in place from the current x. The sweeps solve with opw.mass M + opw.stiff K: for the operator scale
   times that they smooth with b / scale, which has the same iterates */
static PetscErrorCode PCVPatchStep(PC pc, Vec b, Vec x, PetscBool transpose, PetscBool zero)
{
  PC_VPatch    *jac = (PC_VPatch *)pc->data;
  PCVPatchSweep s   = jac->sweep;
  PetscBool     fwd, bwd;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_PatchSmooth, pc, b, x, 0));
  if (jac->bs) {
    PetscCall(VecCopy(b, jac->bs));
    PetscCall(VecScale(jac->bs, 1.0 / jac->scale));
    b = jac->bs;
  }
  if (transpose && s != PC_VPATCH_SWEEP_SYMMETRIC) s = s == PC_VPATCH_SWEEP_FORWARD ? PC_VPATCH_SWEEP_BACKWARD : PC_VPATCH_SWEEP_FORWARD;
  fwd = (PetscBool)(s == PC_VPATCH_SWEEP_FORWARD || s == PC_VPATCH_SWEEP_SYMMETRIC);
  bwd = (PetscBool)(s == PC_VPATCH_SWEEP_BACKWARD || s == PC_VPATCH_SWEEP_SYMMETRIC);
  PetscCall(jac->variant->step(jac, b, x, fwd, bwd, zero));
  PetscCall(PetscLogEventEnd(VPATCH_PatchSmooth, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_VPatch_Private(PC pc, Vec b, Vec y, PetscBool transpose)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;

  PetscFunctionBegin;
  if (jac->type == PC_VPATCH_ADDITIVE) {
    PetscCall(PetscLogEventBegin(VPATCH_PatchSmooth, pc, b, y, 0));
    PetscCall(jac->variant->additive(jac, b, y));
    PetscCall(PetscLogEventEnd(VPATCH_PatchSmooth, pc, b, y, 0));
  } else {
    PetscCall(VecSet(y, 0.0));
    PetscCall(PCVPatchStep(pc, b, y, transpose, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_VPatch(PC pc, Vec b, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApply_VPatch_Private(pc, b, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_VPatch(PC pc, Vec b, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApply_VPatch_Private(pc, b, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether PCApplyRichardson() from a nonzero iterate sweeps on the correction of b - A x (-pc_vpatch_correction): mixed
   where the sweep is single and the operator's DMQBOX double */
static PetscErrorCode PCVPatchUsesCorrection(PC_VPatch *jac, PetscBool *corr)
{
  PetscFunctionBegin;
  if (jac->correction == PC_VPATCH_CORRECTION_MIXED)
    *corr = (PetscBool)(jac->cuda && jac->precision == VP_PRECISION_SINGLE && jac->dm && ((DM_QBox *)jac->dm->data)->precision == VP_PRECISION_DOUBLE);
  else
    *corr = (PetscBool)(jac->correction == PC_VPATCH_CORRECTION_ALL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Richardson iteration by in-place sweeps. With its > 1 and the check on (the default, -pc_vpatch_richardson_check: a
   solver) the true residual norm is computed after each sweep (one MatMult and one norm) and rtol, abstol, dtol are
   honoured; Inf or NaN ends the iteration as KSP_DIVERGED_NANORINF. With its = 1, or the check off (a PCMG smoother with
   several smoothing steps), no norm is computed: the sweeps are done and reported as done, and the outer method watches
   the residual. With the correction form (PCVPatchUsesCorrection()) and a nonzero iterate the sweeps run on A d = b - A y
   from d = 0 and y += d: without the check all its sweeps on one residual, with it one residual (the check's) per sweep. */
static PetscErrorCode PCApplyRichardson_VPatch(PC pc, Vec b, Vec y, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_VPatch *jac    = (PC_VPatch *)pc->data;
  PetscBool  check  = (PetscBool)(jac->rcheck && its > 1);
  PetscReal  rnorm0 = 0, rnorm, ttol = 0;
  PetscInt   i;
  PetscBool  wres = PETSC_FALSE; /* w holds b - A y: the additive step reuses the residual of the check */
  PetscBool  corr;               /* sweeps on the correction of b - A y (-pc_vpatch_correction), not in place */

  PetscFunctionBegin;
  *reason = PCRICHARDSON_NOT_SET;
  PetscCall(PCVPatchUsesCorrection(jac, &corr));
  corr = (PetscBool)(corr && jac->type == PC_VPATCH_MULTIPLICATIVE && !guesszero);
  if (corr && !jac->dcorr) PetscCall(VecDuplicate(b, &jac->dcorr));
  if (check && !jac->rinfo) {
    PetscCall(PetscInfo(pc, "%" PetscInt_FMT " sweeps with the true residual after each (a MatMult and a norm); a PCMG smoother does not need it: -pc_vpatch_richardson_check 0\n", its));
    jac->rinfo = PETSC_TRUE;
  }
  if (!w && (check || jac->type == PC_VPATCH_ADDITIVE || corr)) {
    if (!jac->r) PetscCall(VecDuplicate(b, &jac->r));
    w = jac->r;
  }
  if (guesszero) PetscCall(VecSet(y, 0.0));
  if (check) {
    if (guesszero)
      PetscCall(VecNorm(b, NORM_2, &rnorm0));
    else {
      PetscCall(MatMult(pc->mat, y, w));
      PetscCall(VecAYPX(w, -1.0, b));
      PetscCall(VecNorm(w, NORM_2, &rnorm0));
      wres = PETSC_TRUE;
    }
    ttol = PetscMax(rtol * rnorm0, abstol);
    if (PetscIsInfOrNanReal(rnorm0))
      *reason = (PCRichardsonConvergedReason)KSP_DIVERGED_NANORINF; /* KSPRICHARDSON takes the reason as a KSPConvergedReason */
    else if (rnorm0 <= abstol)
      *reason = PCRICHARDSON_CONVERGED_ATOL;
  }
  for (i = 0; i < its && !*reason; i++) {
    if (jac->type == PC_VPATCH_ADDITIVE) {
      if (!jac->w) PetscCall(VecDuplicate(b, &jac->w));
      if (!wres) {
        PetscCall(MatMult(pc->mat, y, w));
        PetscCall(VecAYPX(w, -1.0, b));
      }
      PetscCall(jac->variant->additive(jac, w, jac->w));
      PetscCall(VecAXPY(y, 1.0, jac->w));
    } else if (corr) { /* on the correction of b - A y from d = 0: without the check all its sweeps on one residual, with it one per sweep (the check's) */
      const PetscBool fresh = (PetscBool)(check || i == 0);
      if (fresh) {
        if (!wres) PetscCall(MatResidual(pc->mat, b, y, w));
        PetscCall(VecSet(jac->dcorr, 0.0));
      }
      PetscCall(PCVPatchStep(pc, w, jac->dcorr, PETSC_FALSE, fresh));
      if (check || i == its - 1) PetscCall(VecAXPY(y, 1.0, jac->dcorr));
    } else
      PetscCall(PCVPatchStep(pc, b, y, PETSC_FALSE, (PetscBool)(guesszero && i == 0)));
    wres = PETSC_FALSE;
    if (!check) continue;
    PetscCall(MatMult(pc->mat, y, w));
    PetscCall(VecAYPX(w, -1.0, b));
    PetscCall(VecNorm(w, NORM_2, &rnorm));
    wres = PETSC_TRUE;
    if (PetscIsInfOrNanReal(rnorm))
      *reason = (PCRichardsonConvergedReason)KSP_DIVERGED_NANORINF;
    else if (rnorm <= ttol)
      *reason = rnorm <= abstol ? PCRICHARDSON_CONVERGED_ATOL : PCRICHARDSON_CONVERGED_RTOL;
    else if (dtol > 0 && rnorm >= dtol * rnorm0)
      *reason = PCRICHARDSON_DIVERGED_DTOL;
  }
  *outits = i;
  if (!*reason) *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_VPatch(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;

  PetscReal w;
  PetscInt  dim = 2;
  PetscBool flg, flg2;
  DM        dm;

  PetscFunctionBegin;
  PetscCall(PCGetDM(pc, &dm));
  if (dm) PetscCall(DMGetDimension(dm, &dim));
  w = jac->damping > 0 ? jac->damping : (dim == 3 ? 0.125 : 0.25); /* the default shown by -help: 1/2^d */
  PetscOptionsHeadBegin(PetscOptionsObject, "Vertex-patch smoother options");
  {
    PCVPatchSweep sweep = jac->sweep;
    PetscCall(PetscOptionsEnum("-pc_vpatch_sweep", "Color order of one smoothing step (symmetric: CG-safe; forward: the PCMG smoother of share/vpatch-mg.options)", "PCVPatchSetSweep", PCVPatchSweeps, (PetscEnum)sweep, (PetscEnum *)&sweep, &flg));
    if (flg) PetscCall(PCVPatchSetSweep(pc, sweep));
  }
  {
    PCVPatchType t = jac->type;
    PetscCall(PetscOptionsEnum("-pc_vpatch_type", "Multiplicative (colored) or additive", "PCVPatchSetType", PCVPatchTypes, (PetscEnum)t, (PetscEnum *)&t, &flg));
    if (flg) PetscCall(PCVPatchSetType(pc, t));
  }
  PetscCall(VPOptionsReal("-pc_vpatch_damping", "Damping of the additive variant (default 1/2^d)", "PCVPatchSetDamping", w, &w, &flg));
  if (flg) PetscCall(PCVPatchSetDamping(pc, w));
  {
    PCVPatchKernel kv = jac->kernel;
    PetscCall(PetscOptionsEnum("-pc_vpatch_kernel", "GPU kernel variant (no effect on the CPU path)", "PCVPatchSetKernel", PCVPatchKernels, (PetscEnum)kv, (PetscEnum *)&kv, &flg));
    if (flg && kv != jac->kernel) pc->setupcalled = PETSC_FALSE; /* the work vectors differ */
    jac->kernel = kv;
  }
  PetscCall(PetscOptionsEnum("-pc_vpatch_precision", "GPU arithmetic of the patch kernels (the CPU path is double only)", "PCVPatchSetPrecision", VPPrecisions, (PetscEnum)jac->precision, (PetscEnum *)&jac->precision, NULL));
  PetscCall(PetscOptionsRangeInt("-pc_vpatch_patches_per_block", "GPU: patches per thread block (0: chosen per dimension and degree; no effect on the CPU path)", "PCVPATCH", jac->ppb, &jac->ppb, &flg2, 0, 64));
  if (flg || flg2) jac->kernelset = PETSC_TRUE;
  PetscCall(PetscOptionsBool("-pc_vpatch_dg_lines", "Discontinuous DMQBOX in 3D, GPU: one thread per 1D line of a patch (else one per unknown)", "PCVPATCH", jac->dglines, &jac->dglines, NULL));
  PetscCall(
      PetscOptionsBool("-pc_vpatch_richardson_check", "KSPRICHARDSON with more than one iteration: the true residual after each sweep, for the tolerances (off for a PCMG smoother of several steps)", "PCVPATCH", jac->rcheck, &jac->rcheck, NULL));
  {
    PCVPatchCorrection c = jac->correction;
    PetscCall(PetscOptionsEnum("-pc_vpatch_correction",
                               "KSPRICHARDSON from a nonzero iterate (a PCMG post-smoother): sweep in place, or on the correction of b - A x from the operator's own arithmetic (mixed: where the sweep is single and the operator double)",
                               "PCVPatchSetCorrection", PCVPatchCorrections, (PetscEnum)c, (PetscEnum *)&c, &flg));
    if (flg) PetscCall(PCVPatchSetCorrection(pc, c));
  }
  {
    /* shown: the order set, else the default for the DM's dimension where it is known (8 colors where not); read: up to
       16 entries, so that too many are refused instead of cut at the capacity */
    PetscInt  shown[8], ns = jac->norder, given[16], ng = 16, dim = 3;
    PetscBool set;
    DM        dm = jac->dm ? jac->dm : pc->dm;
    if (dm) {
      PetscBool isq;
      PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMQBOX, &isq));
      if (isq) PetscCall(DMQBoxGetInfo(dm, &dim, NULL, NULL, NULL, NULL));
    }
    if (!ns) ns = (PetscInt)1 << dim;
    for (PetscInt i = 0; i < ns; i++) shown[i] = jac->norder ? jac->order[i] : i;
    PetscCall(PetscOptionsIntArray("-pc_vpatch_colors", "Order of the 2^d colors in a forward pass (color c: the vertices whose coordinate d is odd where bit d of c is 1; default 0,1,...,2^d-1)", "PCVPatchSetColorOrder", shown, &ns, &set));
    if (set) {
      PetscCall(PetscOptionsGetIntArray(PetscOptionsObject->options, PetscOptionsObject->prefix, "-pc_vpatch_colors", given, &ng, NULL));
      PetscCall(PCVPatchSetColorOrder(pc, ng, given));
    }
  }
  PetscCall(PetscOptionsBool("-pc_vpatch_overlap", "Several ranks: solve the patches next to other ranks first, the others while their values travel", "PCVPATCH", jac->overlap, &jac->overlap, NULL));
  {
    PCVPatchRanks r = jac->ranks;
    PetscCall(PetscOptionsEnum("-pc_vpatch_ranks", "Several ranks: exact (one exchange per run of colors that agree along the cut directions; one rank's iterates) or relaxed (no exchange inside a sweep; not symmetric)", "PCVPatchSetRanks",
                               PCVPatchRanksTypes, (PetscEnum)r, (PetscEnum *)&r, &flg));
    if (flg) PetscCall(PCVPatchSetRanks(pc, r));
  }
  PetscCall(PetscOptionsEnum("-pc_vpatch_surrogate",
                             "Mapped DMQBOX: the separable surrogate of each patch (default: pointmax, with the local solvers cg and scaled mean; profile: each patch's 1D matrices weighted by a profile of its factors, 3D, stiffness only)",
                             "PCVPATCH", PCVPatchSurrogates, (PetscEnum)jac->surtype, (PetscEnum *)&jac->surtype, &flg));
  if (flg) {
    pc->setupcalled = PETSC_FALSE;
    jac->surtypeset = PETSC_TRUE;
  }
  PetscCall(PetscOptionsEnum("-pc_vpatch_local_solver", "Local solver: fast diagonalization, dense LU, or (mapped DMQBOX) CG steps on the patch's true operator, or the surrogate scaled by the diagonal (default where the DMQBOX has a coefficient)",
                             "PCVPatchSetLocalSolver", PCVPatchLocalSolvers, (PetscEnum)jac->local, (PetscEnum *)&jac->local, &flg));
  if (flg) {
    pc->setupcalled = PETSC_FALSE;
    jac->localset   = PETSC_TRUE;
  }
  PetscCall(PetscOptionsRangeInt("-pc_vpatch_local_its", "Local solver cg: CG steps per patch", "PCVPATCH", jac->localits, &jac->localits, &flg, 1, 100));
  if (flg) pc->setupcalled = PETSC_FALSE;
  PetscCall(VPOptionsReal("-pc_vpatch_local_damping", "Local solver scaled: one damping of every patch's correction (0 < w <= 1; -1: in 3D each patch its own, -pc_vpatch_local_damping_steps, else min(0.7, 2.1/k))", "PCVPATCH", jac->localdamp,
                          &jac->localdamp, &flg));
  PetscCheck(jac->localdamp == (PetscReal)PETSC_DETERMINE || (jac->localdamp > 0 && jac->localdamp <= 1), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "-pc_vpatch_local_damping %g: give a damping in (0, 1], or -1 for the default (each patch its own in 3D, else min(0.7, 2.1/k))", (double)jac->localdamp);
  if (flg) pc->setupcalled = PETSC_FALSE;
  PetscCall(PetscOptionsRangeInt("-pc_vpatch_local_damping_steps",
                                 "Local solver scaled, 3D, without -pc_vpatch_local_damping: Lanczos steps per patch for its own damping min(1, 1.7/lambda_max) (-1: 3, a symmetric sweep 5; 0: min(0.7, 2.1/k) for all)", "PCVPATCH", jac->dampsteps,
                                 &jac->dampsteps, &flg, PETSC_DETERMINE, VP_PATCH_LANCZOS_MAX));
  PetscCheck(jac->dampsteps == PETSC_DETERMINE || jac->dampsteps == 0 || jac->dampsteps >= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "-pc_vpatch_local_damping_steps %" PetscInt_FMT ": give 0 (one damping for all) or at least 3 Lanczos steps; fewer estimate too small a largest eigenvalue on some patches (Q_7 diverges with 2)", jac->dampsteps);
  if (flg) pc->setupcalled = PETSC_FALSE;
  PetscCall(PetscOptionsBool("-pc_vpatch_patch_residual", "Mapped DMQBOX, CUDA, 3D: each color's residual formed patch by patch from its cells (else MatResidual of the whole level)", "PCVPATCH", jac->patchres, &jac->patchres, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a forward or backward sweep is not symmetric, and the Krylov methods below need a symmetric preconditioner: CG ends
   in DIVERGED_ITS or INDEFINITE_PC instead of converging. Where one patch covers the level (2 cells per direction)
   every sweep is the exact solve, which is symmetric. */
static PetscErrorCode PCPreSolve_VPatch(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;
  PetscBool  sym, onepatch = PETSC_TRUE;

  PetscFunctionBegin;
  (void)b;
  (void)x;
  if (jac->type == PC_VPATCH_ADDITIVE || jac->sweep == PC_VPATCH_SWEEP_SYMMETRIC) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &sym, KSPCG, KSPPIPECG, KSPPIPECGRR, KSPGROPPCG, KSPPIPELCG, KSPCR, KSPPIPECR, KSPMINRES, KSPSYMMLQ, KSPNASH, KSPSTCG, KSPGLTR, KSPQCG, ""));
  if (!sym) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac->dm) {
    PetscInt dim, cells[3];
    PetscCall(DMQBoxGetInfo(jac->dm, &dim, cells, NULL, NULL, NULL));
    for (PetscInt d = 0; d < dim; d++) onepatch = (PetscBool)(onepatch && cells[d] == 2);
  } else
    onepatch = PETSC_FALSE;
  PetscCheck(onepatch, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP,
             "PCVPATCH with a %s sweep is not a symmetric preconditioner, which %s (-%sksp_type) needs: use -%spc_vpatch_sweep symmetric, or a Krylov method for nonsymmetric preconditioners (-%sksp_type gmres or fgmres)", PCVPatchSweeps[jac->sweep],
             ((PetscObject)ksp)->type_name, ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "", ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : "", ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_VPatch(PC pc, PetscViewer viewer)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;
  PetscBool  isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac->type == PC_VPATCH_MULTIPLICATIVE)
    PetscCall(PetscViewerASCIIPrintf(viewer, "vertex patches, %s, local solver %s, %s sweep over the colors\n", PCVPatchTypes[jac->type], PCVPatchLocalSolvers[jac->local], PCVPatchSweeps[jac->sweep]));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "vertex patches, %s, local solver %s, damping %g\n", PCVPatchTypes[jac->type], PCVPatchLocalSolvers[jac->local], (double)jac->damping));
  if (!jac->rcheck) PetscCall(PetscViewerASCIIPrintf(viewer, "KSPRICHARDSON with several iterations: the sweeps only, no residual or tolerance between them (-pc_vpatch_richardson_check 0)\n"));
  if (jac->norder) {
    char buf[32];
    for (PetscInt i = 0; i < jac->norder; i++) {
      buf[2 * i]     = (char)('0' + jac->order[i]);
      buf[2 * i + 1] = i < jac->norder - 1 ? ',' : '\0';
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "colors of a forward pass in the order %s (-pc_vpatch_colors)\n", buf));
  }
  if (jac->correction != PC_VPATCH_CORRECTION_NONE && jac->type == PC_VPATCH_MULTIPLICATIVE) {
    PetscBool corr;
    PetscCall(PCVPatchUsesCorrection(jac, &corr));
    PetscCall(PetscViewerASCIIPrintf(viewer, "KSPRICHARDSON from a nonzero iterate: %s (-pc_vpatch_correction %s)\n", corr ? "the sweeps smooth the correction of b - A x" : "sweeps in place (the sweep's and the operator's precision agree)",
                                     PCVPatchCorrections[jac->correction]));
  }
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    if (size > 1 && jac->type == PC_VPATCH_MULTIPLICATIVE && !jac->surrogate) {
      if (jac->ranks == PC_VPATCH_RANKS_RELAXED)
        PetscCall(PetscViewerASCIIPrintf(viewer, "ranks relaxed: no exchange inside a sweep, each rank keeps its own nodes' values (not symmetric)\n"));
      else if (jac->dm) { /* one exchange per run of colors that agree along the cut directions (PCVPatchStepLocal()) */
        const PetscInt dim = ((DM_QBox *)jac->dm->data)->dim;
        const int      nx  = 1 << (dim - DMQBoxColorGroupBits_Private(jac->dm));
        PetscCall(PetscViewerASCIIPrintf(viewer, "ranks exact: %d exchange%s per pass over the %d colors (one per run of colors that agree along the cut directions)%s\n", nx, nx > 1 ? "s" : "", 1 << dim,
                                         jac->overlap ? ", overlapped with the inner patches" : ""));
      } else
        PetscCall(PetscViewerASCIIPrintf(viewer, "ranks exact: one exchange per run of colors that agree along the cut directions%s\n", jac->overlap ? ", overlapped with the inner patches" : ""));
    } else if (size > 1 && jac->surrogate && jac->ranks == PC_VPATCH_RANKS_RELAXED)
      PetscCall(PetscViewerASCIIPrintf(viewer, "-pc_vpatch_ranks relaxed has no effect on a mapped DMQBOX (each color's residual is a MatMult)\n"));
  }
  if (jac->dm && ((DM_QBox *)jac->dm->data)->dg) {
    DM_QBox *q = (DM_QBox *)jac->dm->data;
    PetscCall(PetscViewerASCIIPrintf(viewer, "discontinuous Q_%" PetscInt_FMT " in %" PetscInt_FMT "D (SIPG): %d colors, DG vertex patches of %d cells, %" PetscInt_FMT "^%" PetscInt_FMT " unknowns each, exact by fast diagonalization, %s, %s\n",
                                     q->degree, q->dim, 1 << q->dim, 1 << q->dim, 2 * (q->degree + 1), q->dim,
                                     jac->type == PC_VPATCH_ADDITIVE ? "all patches on one residual (additive)" : (jac->dgfused ? "each patch's residual in the patch kernel (fused)" : "each color's residual by the operator"),
                                     jac->cuda ? "CUDA kernels" : "CPU"));
    if (jac->cuda) PetscCall(PetscViewerASCIIPrintf(viewer, "%s precision arithmetic (-pc_vpatch_precision)\n", VPPrecisions[jac->precision]));
    if (jac->cuda && q->dim == 3) PetscCall(PetscViewerASCIIPrintf(viewer, "CUDA kernel: one thread per %s (-pc_vpatch_dg_lines)\n", jac->dglines ? "1D line of a patch" : "unknown of a patch"));
  } else if (jac->dm) {
    DM_QBox *q = (DM_QBox *)jac->dm->data;
    PetscCall(PetscViewerASCIIPrintf(viewer, "Q_%" PetscInt_FMT " in %" PetscInt_FMT "D: %" PetscInt_FMT " colors, %" PetscInt_FMT "^%" PetscInt_FMT " unknowns per patch, %s\n", q->degree, q->dim, (PetscInt)(q->dim == 3 ? 8 : 4), 2 * q->degree - 1,
                                     q->dim,
                                     jac->cuda ? (jac->kernel == PC_VPATCH_KERNEL_FUSED
                                                      ? "CUDA kernel fused (localized residual and local solve in one kernel per color)"
                                                      : (jac->kernel == PC_VPATCH_KERNEL_SEPARATE ? "CUDA kernels separate (localized residual kernel, then local solve kernel)" : "CUDA kernel global (residual by MatMult, then local solve kernel)"))
                                               : "CPU kernel"));
    const char *res = jac->patchran ? "patch by patch from its cells (-pc_vpatch_patch_residual)" : "by MatResidual";
    if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_CG)
      PetscCall(PetscViewerASCIIPrintf(
          viewer, "mapped DMQBOX: %" PetscInt_FMT " CG steps per patch on its true operator, preconditioned by the separable surrogate (%s) scaled by the diagonal; nonlinear (use a flexible outer method); each color's residual %s\n", jac->localits,
          PCVPatchSurrogates[jac->surtype], res));
    else if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_SCALED && (jac->pw || jac->d_pw))
      PetscCall(PetscViewerASCIIPrintf(viewer,
                                       "mapped DMQBOX: local solves by the separable surrogate (%s) scaled by the operator's diagonal, each patch damped by min(1, 1.7 / lambda_max) from %" PetscInt_FMT
                                       " Lanczos steps (-pc_vpatch_local_damping_steps); each color's residual %s\n",
                                       PCVPatchSurrogates[jac->surtype], PCVPatchDampSteps(jac), res));
    else if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_SCALED)
      PetscCall(PetscViewerASCIIPrintf(viewer, "mapped DMQBOX: local solves by the separable surrogate (%s) scaled by the operator's diagonal, damped by %g (-pc_vpatch_local_damping); each color's residual %s\n", PCVPatchSurrogates[jac->surtype],
                                       (double)jac->damp, res));
    else if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_FDM)
      PetscCall(PetscViewerASCIIPrintf(viewer, "mapped DMQBOX: inexact local solves (fast diagonalization of a separable surrogate per patch, scaled by %s), each color's residual %s\n", PCVPatchSurrogates[jac->surtype], res));
    else if (jac->surrogate)
      PetscCall(PetscViewerASCIIPrintf(viewer, "mapped DMQBOX: exact local solves (each patch's dense LU), each color's residual %s\n", res));
    else if (jac->local == PC_VPATCH_LOCAL_CG || jac->local == PC_VPATCH_LOCAL_SCALED)
      PetscCall(PetscViewerASCIIPrintf(viewer, "Cartesian DMQBOX: local solver %s is the exact fast diagonalization here\n", PCVPatchLocalSolvers[jac->local]));
    if (jac->opw.mass != 0)
      PetscCall(PetscViewerASCIIPrintf(viewer, "operator: %g M + %g K (mass and stiffness)\n", (double)(PetscRealPart(jac->scale) * jac->opw.mass), (double)(PetscRealPart(jac->scale) * jac->opw.stiff)));
    else if (PetscRealPart(jac->scale) * jac->opw.stiff != 1.0)
      PetscCall(PetscViewerASCIIPrintf(viewer, "operator: the DMQBOX operator scaled by %g\n", (double)(PetscRealPart(jac->scale) * jac->opw.stiff)));
    if (!jac->cuda && jac->kernelset) PetscCall(PetscViewerASCIIPrintf(viewer, "-pc_vpatch_kernel and -pc_vpatch_patches_per_block have no effect on the CPU path\n"));
    if (jac->cuda) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s precision arithmetic (-pc_vpatch_precision)\n", VPPrecisions[jac->precision]));
      if (jac->ppb > 0)
        PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " patches per thread block (-pc_vpatch_patches_per_block)\n", jac->ppb));
      else
        PetscCall(PetscViewerASCIIPrintf(viewer, "patches per thread block: chosen for the degree (-pc_vpatch_patches_per_block to override)\n"));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVPatchSetSweep_VPatch(PC pc, PCVPatchSweep s)
{
  PC_VPatch     *jac   = (PC_VPatch *)pc->data;
  const PetscInt steps = PCVPatchDampSteps(jac);

  PetscFunctionBegin;
  jac->sweep = s;
  if (PCVPatchDampSteps(jac) != steps) pc->setupcalled = PETSC_FALSE; /* the dampings' default steps follow the sweep */
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetRanks_VPatch(PC pc, PCVPatchRanks r)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;

  PetscFunctionBegin;
  if (r != jac->ranks) pc->setupcalled = PETSC_FALSE; /* exact needs the colors' star forests */
  jac->ranks = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetKernel_VPatch(PC pc, PCVPatchKernel kv)
{
  PetscFunctionBegin;
  ((PC_VPatch *)pc->data)->kernel    = kv;
  ((PC_VPatch *)pc->data)->kernelset = PETSC_TRUE;
  pc->setupcalled                    = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetType_VPatch(PC pc, PCVPatchType t)
{
  PetscFunctionBegin;
  if (((PC_VPatch *)pc->data)->type != t) pc->setupcalled = PETSC_FALSE; /* the work vectors differ */
  ((PC_VPatch *)pc->data)->type = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetDamping_VPatch(PC pc, PetscReal w)
{
  PetscFunctionBegin;
  PetscCheck(w > 0 && w <= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCVPATCH damping (-pc_vpatch_damping) must be in (0, 1], got %g; the default is 1/2^d", (double)w);
  ((PC_VPatch *)pc->data)->damping = w;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetCorrection_VPatch(PC pc, PCVPatchCorrection c)
{
  PetscFunctionBegin;
  ((PC_VPatch *)pc->data)->correction = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetColorOrder_VPatch(PC pc, PetscInt n, const PetscInt order[])
{
  PC_VPatch *jac  = (PC_VPatch *)pc->data;
  PetscInt   seen = 0;

  PetscFunctionBegin;
  PetscCheck(n == 0 || n == 4 || n == 8, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCVPATCH color order: %" PetscInt_FMT " colors given; give all 4 (2D) or 8 (3D) colors once each, or none for the default", n);
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(order[i] >= 0 && order[i] < n && !(seen >> order[i] & 1), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
               "PCVPATCH color order: entry %" PetscInt_FMT " is %" PetscInt_FMT "; the order must give each of 0..%" PetscInt_FMT " once", i, order[i], n - 1);
    seen |= (PetscInt)1 << order[i];
    jac->order[i] = order[i];
  }
  jac->norder = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetPrecision_VPatch(PC pc, VPPrecision p)
{
  PetscFunctionBegin;
  ((PC_VPatch *)pc->data)->precision = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCVPatchSetLocalSolver_VPatch(PC pc, PCVPatchLocalSolver l)
{
  PetscFunctionBegin;
  ((PC_VPatch *)pc->data)->local    = l;
  ((PC_VPatch *)pc->data)->localset = PETSC_TRUE;
  pc->setupcalled                   = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetPrecision - Sets the arithmetic precision of the GPU patch kernels of `PCVPATCH`

  Logically Collective

  Input Parameters:
+ pc        - the `PCVPATCH`
- precision - `VP_PRECISION_DOUBLE` (default) or `VP_PRECISION_SINGLE`

  Options Database Key:
. -pc_vpatch_precision <double,single> - the precision

  Level: intermediate

  Note:
  Vectors stay `PetscScalar`: single precision converts on load into shared memory and on the store, halving the
  shared-memory footprint and traffic of the kernels. The CPU path is double only.

  In single precision each patch's residual b - A x has an absolute error of about 1e-7 |A| |x|. As a smoother of a
  preconditioner (PCMG inside FGMRES, or in `KSPRICHARDSON`'s own loop) it sees residual equations and that is harmless;
  smoothing the solution itself (`KSPRICHARDSON` over `PCMG` with the default convergence test, which hands the
  iteration to `PCApplyRichardson()` of `PCMG`) stalls there: keep the finest level double
  (-mg_levels_<n>_pc_vpatch_precision double) or use an outer Krylov method.

.seealso: `PCVPATCH`, `VPPrecision`, `DMQBoxSetPrecision()`
@*/
PetscErrorCode PCVPatchSetPrecision(PC pc, VPPrecision precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, precision, 2);
  PetscTryMethod(pc, "PCVPatchSetPrecision_C", (PC, VPPrecision), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetSweep - Sets the color order of one smoothing step of `PCVPATCH`

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- s  - `PC_VPATCH_SWEEP_FORWARD`, `PC_VPATCH_SWEEP_BACKWARD` or `PC_VPATCH_SWEEP_SYMMETRIC`

  Options Database Key:
. -pc_vpatch_sweep <forward,backward,symmetric> - the sweep

  Level: intermediate

.seealso: `PCVPATCH`, `PCVPatchSweep`
@*/
PetscErrorCode PCVPatchSetSweep(PC pc, PCVPatchSweep s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCVPatchSetSweep_C", (PC, PCVPatchSweep), (pc, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetColorOrder - Sets the order in which a forward pass of `PCVPATCH` visits the colors of vertex patches

  Logically Collective

  Input Parameters:
+ pc    - the `PCVPATCH`
. n     - the number of colors: 2^d (4 in 2D, 8 in 3D), or 0 for the default order 0, 1, ..., 2^d - 1
- order - the colors in the order of a forward pass, each once

  Options Database Key:
. -pc_vpatch_colors <c0,c1,...> - the order

  Level: advanced

  Notes:
  Color c holds the patches of the interior vertices whose coordinate (vertex index) along direction d is odd where bit d
  of c is 1 and even where it is 0: color 0 holds the vertices of the next coarser mesh, color 2^d - 1 the centers of its
  cells. A backward pass visits the colors in the reverse order, a symmetric step forward then backward. The order
  changes the smoother (each color's patches see the corrections of the colors before them) and so the contraction of a
  multigrid cycle, not the cost of a sweep on one rank. On several ranks each run of consecutive colors that agree
  along the directions the process grid cuts shares one exchange, so an order that interleaves them exchanges more often.
  The discontinuous space keeps the default order.

.seealso: `PCVPATCH`, `PCVPatchSetSweep()`
@*/
PetscErrorCode PCVPatchSetColorOrder(PC pc, PetscInt n, const PetscInt order[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  if (n) PetscAssertPointer(order, 3);
  PetscTryMethod(pc, "PCVPatchSetColorOrder_C", (PC, PetscInt, const PetscInt[]), (pc, n, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetCorrection - Sets how `PCApplyRichardson()` of `PCVPATCH` sweeps from a nonzero iterate

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- c  - `PC_VPATCH_CORRECTION_NONE` (default: in place), `PC_VPATCH_CORRECTION_MIXED` or `PC_VPATCH_CORRECTION_ALL`

  Options Database Key:
. -pc_vpatch_correction <none,mixed,all> - the form

  Level: advanced

  Notes:
  In place, a single-precision sweep computes each patch's residual b - A x with an error of about 1e-7 |A| |x|; where x
  holds a large smooth part (the post-smoother of the finest level after the coarse correction of a first cycle from a
  smooth right-hand side) that leaves high-frequency rounding errors whose residual grows with the condition number
  (measured: the first mixed-precision cycle of a 514M Q_5 problem reduced the residual to 1.4e-2 against 2.4e-3 with the
  correction form). The correction form computes r = b - A x with the operator in its own precision (`MatResidual()`),
  sweeps on A d = r from d = 0 and adds d: one residual, the zeroing of d and an update more per smoothing step, and one
  more vector of the level. All the sweeps of one `KSPRICHARDSON` application share the residual (without the
  residual check). mixed applies it where the sweep is single and the operator's `DMQBOX` double: the finest level of
  a hierarchy whose coarser levels are single (`DMQBoxSetPrecision()`), so `-mg_levels_pc_vpatch_correction mixed` sets
  it there only.

.seealso: `PCVPATCH`, `PCVPatchCorrection`, `PCVPatchSetPrecision()`
@*/
PetscErrorCode PCVPatchSetCorrection(PC pc, PCVPatchCorrection c)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, c, 2);
  PetscTryMethod(pc, "PCVPatchSetCorrection_C", (PC, PCVPatchCorrection), (pc, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetRanks - Sets how the multiplicative sweep of `PCVPATCH` couples several MPI ranks

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- r  - `PC_VPATCH_RANKS_EXACT` (default: one rank's iterates, one exchange per run of colors that agree along the cut directions: 2 per pass for slabs in 3D) or `PC_VPATCH_RANKS_RELAXED` (no
       exchange inside a sweep; each rank keeps its own nodes' values)

  Options Database Key:
. -pc_vpatch_ranks <exact,relaxed> - the coupling

  Level: advanced

  Note:
  Relaxed trades iterations for exchanges where the exchanges are slow (an MPI that is not GPU-aware). It is not a
  symmetric preconditioner: use `KSPGMRES` or `KSPFGMRES` outside. On one rank both are the same.

.seealso: `PCVPATCH`, `PCVPatchRanks`
@*/
PetscErrorCode PCVPatchSetRanks(PC pc, PCVPatchRanks r)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, r, 2);
  PetscTryMethod(pc, "PCVPatchSetRanks_C", (PC, PCVPatchRanks), (pc, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetKernel - Chooses the GPU kernel variant of `PCVPATCH`

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- kv - `PC_VPATCH_KERNEL_GLOBAL`, `PC_VPATCH_KERNEL_SEPARATE` or `PC_VPATCH_KERNEL_FUSED` (default)

  Options Database Key:
. -pc_vpatch_kernel <global,separate,fused> - the variant

  Level: advanced

  Note:
  All variants compute the same sweep; they differ in memory traffic. The CPU path has one implementation
  (localized residual and local solve per patch) and ignores this setting.

.seealso: `PCVPATCH`, `PCVPatchKernel`
@*/
PetscErrorCode PCVPatchSetKernel(PC pc, PCVPatchKernel kv)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCVPatchSetKernel_C", (PC, PCVPatchKernel), (pc, kv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetType - Chooses multiplicative (colored) or additive patch corrections

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- t  - `PC_VPATCH_MULTIPLICATIVE` or `PC_VPATCH_ADDITIVE`

  Options Database Key:
. -pc_vpatch_type <multiplicative,additive> - the type

  Level: intermediate

.seealso: `PCVPATCH`, `PCVPatchSetDamping()`
@*/
PetscErrorCode PCVPatchSetType(PC pc, PCVPatchType t)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCVPatchSetType_C", (PC, PCVPatchType), (pc, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetDamping - Sets the damping factor of the additive variant of `PCVPATCH`

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- w  - the damping (default 1/2^d: each unknown belongs to up to 2^d patches)

  Options Database Key:
. -pc_vpatch_damping <w> - the damping

  Level: intermediate

.seealso: `PCVPATCH`, `PCVPatchSetType()`
@*/
PetscErrorCode PCVPatchSetDamping(PC pc, PetscReal w)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCVPatchSetDamping_C", (PC, PetscReal), (pc, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVPatchSetLocalSolver - Chooses the local solver of `PCVPATCH`

  Logically Collective

  Input Parameters:
+ pc - the `PCVPATCH`
- l  - `PC_VPATCH_LOCAL_FDM` (fast diagonalization, the default), `PC_VPATCH_LOCAL_DENSE` (stored LU, for verification),
         `PC_VPATCH_LOCAL_CG` (mapped `DMQBOX`: CG steps on each patch's true operator, preconditioned by its scaled
         surrogate: fewer cycles at high degree and contrast, e.g. Q_7 at contrast 1e6 6 against 18 with 3 steps, in
         less time; at Q_3, Q_5 and at Q_7 up to contrast 1e4 the scaled solver is faster) or `PC_VPATCH_LOCAL_SCALED` (mapped
         `DMQBOX`: the surrogate scaled by the operator's diagonal, damped; the default where the `DMQBOX` has a coefficient and
         no mass term), see `PCVPatchLocalSolver`

  Options Database Keys:
+ -pc_vpatch_local_solver <fdm,dense,cg,scaled> - the local solver
. -pc_vpatch_local_its <n>                      - local solver cg: CG steps per patch (default 2)
. -pc_vpatch_local_damping <w>                  - local solver scaled: one damping of every correction (default: in 3D without a mass term each patch its own, else min(0.7, 2.1/k))
- -pc_vpatch_local_damping_steps <m>            - local solver scaled, 3D: Lanczos steps per patch at set-up for its own damping min(1, 1.7 / lambda_max(P_v^-1 A_v)) (default 3, a symmetric sweep 5; 0: min(0.7, 2.1/k) for all)

  Level: advanced

.seealso: `PCVPATCH`
@*/
PetscErrorCode PCVPatchSetLocalSolver(PC pc, PCVPatchLocalSolver l)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCVPatchSetLocalSolver_C", (PC, PCVPatchLocalSolver), (pc, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_VPatch(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_VPatch(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetSweep_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetRanks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetKernel_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetDamping_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetLocalSolver_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetPrecision_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCVPATCH - "vpatch": the colored multiplicative vertex-patch smoother with exact local solves by
  fast diagonalization, for the operators of a `DMQBOX`

  Each step visits the 2^d colors of interior vertices in turn; for every patch (the 2^d cells
  around a vertex) of a color it computes the residual on the patch interior from the patch's cells
  only (localized residual) and adds the exact patch solve A_v^{-1} r_v, applied as three (2D: two)
  tensor contractions, a diagonal scaling and their transposes. Dirichlet rows are solved exactly.

  Options Database Keys:
+ -pc_vpatch_sweep <symmetric,forward,backward> - color order (default symmetric = forward then backward, a symmetric preconditioner for CG; backward is the adjoint of forward)
. -pc_vpatch_type <multiplicative,additive>     - colored multiplicative (default) or additive corrections
. -pc_vpatch_damping <w>                        - damping of the additive variant (default 1/2^d)
. -pc_vpatch_kernel <global,separate,fused>     - GPU kernel variant (default fused)
. -pc_vpatch_precision <double,single>           - GPU arithmetic of the patch kernels (single: mixed precision multigrid, see `VPPrecision`)
. -pc_vpatch_patches_per_block <n>              - GPU: patches per thread block (default 0: enough patches for about 256 threads, one per 1D line, at most 64, fewer where such a block would take more than half of an SM's shared memory)
. -pc_vpatch_local_solver <fdm,dense,cg,scaled> - fast diagonalization (default), a stored dense LU (verification), on a mapped `DMQBOX` CG steps on each patch's true operator, or the surrogate scaled by the operator's diagonal (the default where the `DMQBOX` has a coefficient)
. -pc_vpatch_local_its <n>                      - local solver cg: CG steps per patch (default 2)
. -pc_vpatch_local_damping <w>                  - local solver scaled: one damping of every correction (default: in 3D without a mass term each patch its own, else min(0.7, 2.1/k))
. -pc_vpatch_local_damping_steps <m>            - local solver scaled, 3D: Lanczos steps per patch at set-up for its own damping min(1, 1.7 / lambda_max(P_v^-1 A_v)) (default 3, a symmetric sweep 5; 0: min(0.7, 2.1/k) for all)
. -pc_vpatch_patch_residual <bool>              - mapped `DMQBOX` in 3D, CUDA, stiffness only: each color's residual formed patch by patch from the patch's cells, without atomics (several ranks: in place on x's ghosted copy, an exchange after each group of colors) (default true; false: `MatResidual()` of the whole level)
. -pc_vpatch_surrogate <pointmax,cellmax,mean,profile> - mapped `DMQBOX`: the separable surrogate (`PCVPatchSurrogate`)
. -pc_vpatch_dg_lines <bool>                     - discontinuous `DMQBOX` in 3D on the GPU: one thread per 1D line of a patch (default) or per unknown
. -pc_vpatch_richardson_check <bool>            - `KSPRICHARDSON` with more than one iteration: the true residual after each sweep, for the tolerances (default true; false for a `PCMG` smoother of several steps)
. -pc_vpatch_colors <c0,c1,...>                  - order of the colors in a forward pass (`PCVPatchSetColorOrder()`; default 0,1,...,2^d-1)
. -pc_vpatch_correction <none,mixed,all>         - from a nonzero iterate: sweep in place (default) or on the correction of b - A x (`PCVPatchSetCorrection()`)
. -pc_vpatch_overlap <bool>                      - several ranks: solve the patches next to other ranks first and the others while their values travel (default true)
- -pc_vpatch_ranks <exact,relaxed>               - several ranks: one rank's iterates with one exchange per group of colors (default), or no exchange inside a sweep (`PCVPatchRanks`; not symmetric)

  Level: beginner

  Notes:
  The preconditioning matrix must be the Laplacian of a `DMQBOX` (from `DMCreateMatrix()`, matrix-free or assembled),
  or a positive multiple of it (`MatScale()`); the sweeps then solve with that multiple. Any other operator (shifted
  by `MatShift()`, changed by `MatDiagonalSet()`, an assembled matrix with other entries) is refused with an error
  at `PCSetUp()`. Each level needs at least 2 cells per direction (an interior vertex). On a discontinuous `DMQBOX`
  (`DMQBoxSetDiscontinuous()`) the patches are the DG vertex patches (every DoF of the 2^d cells around an interior
  vertex), multiplicative (each color's residual by the SIPG operator) or additive (`-pc_vpatch_type additive`), CPU.

  Standalone (`-pc_type vpatch`) the default symmetric sweep makes a symmetric positive definite preconditioner, so
  the default `KSPCG` works. Inside `KSPRICHARDSON`, with more than one iteration, the true residual norm is computed
  after each sweep (default) and the tolerances (rtol, atol, dtol) are honoured; Inf or NaN stops the iteration with
  `KSP_DIVERGED_NANORINF`. With one iteration (the `PCMG` smoother setting) no norm is computed. A `PCMG` smoother of
  several steps (`-mg_levels_ksp_max_it 2`) needs no norm either (`PCMG` sets no tolerance for it): turn the check off
  with `-mg_levels_pc_vpatch_richardson_check 0`, which saves a `MatMult()` and a norm per sweep (the sweeps alone, as
  `PCSOR` does); `-info` names each PC that runs the check, once.

  As a `PCMG` level smoother use it inside `KSPRICHARDSON`: `-mg_levels_ksp_type richardson
  -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_levels_pc_vpatch_sweep forward` (`share/vpatch-mg.options`);
  `PCApplyRichardson()` then sweeps in place from the current iterate, without a separate global residual. For CG outside, the V-cycle must be
  symmetric: either `-mg_levels_pc_vpatch_sweep symmetric` (forward and backward in each smoothing
  step), or forward pre- and backward post-smoothing with distinct up-smoothers, which take their own
  options: `-pc_mg_distinct_smoothup -mg_levels_up_ksp_type richardson -mg_levels_up_ksp_max_it 1
  -mg_levels_up_pc_type vpatch -mg_levels_up_pc_vpatch_sweep backward`.

  The sweep is exactly multiplicative on any number of MPI ranks, so iterates and iteration counts do not depend on
  the partition: each rank solves its patches of a color in place in its ghosted local vector, then one exchange (a
  `PetscSF` made from the box decomposition, `DMQBOX`) brings the values that other ranks' patches changed into every
  local vector that holds them. Consecutive colors that agree along every direction the process grid cuts share one
  exchange (no patch of one reads what another rank's patch of the other changed): slabs in 3D exchange twice per
  pass over the 8 colors, a 2 x 2 x 2 process grid 8 times. The patches next to other ranks are solved first, the
  inner ones while the exchange travels.

  On CUDA vectors one kernel per color does a patch's localized residual and solve in shared memory, one thread per
  1D line with the line in registers; the 1D reference matrices of the degree sit in constant memory and are scaled
  by the cell sizes of the level (the `DMQBOX` mesh is uniform per direction). See src/pc/impls/vpatch/cuda/vpatch.cu.

.seealso: `PCMG`, `DMQBOX`, `PCVPatchSetSweep()`, `PCVPatchSetType()`, `PCPATCH`
M*/
PetscErrorCode PCCreate_VPatch(PC pc)
{
  PC_VPatch *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data       = jac;
  jac->sweep     = PC_VPATCH_SWEEP_SYMMETRIC; /* a symmetric preconditioner for CG; share/vpatch-mg.options sets forward for PCMG */
  jac->type      = PC_VPATCH_MULTIPLICATIVE;
  jac->damping   = 0.0; /* 1/2^d at set-up */
  jac->local     = PC_VPATCH_LOCAL_FDM;
  jac->localits  = 2;               /* two steps: 4-5 cycles at contrast 1e6 where one step takes 5-7, measured */
  jac->localdamp = PETSC_DETERMINE; /* local solver scaled: each patch its own in 3D, else min(0.7, 2.1/k) (vpatch_mapped.c says why) */
  jac->dampsteps = PETSC_DETERMINE; /* local solver scaled, 3D: each patch's own damping from 3 Lanczos steps, 5 for a symmetric sweep (PCVPatchDampSteps(), vpatch_mapped.c says why) */
  jac->kernel    = PC_VPATCH_KERNEL_FUSED;
  jac->overlap   = PETSC_TRUE;
  jac->ranks     = PC_VPATCH_RANKS_EXACT;
  jac->dglines   = PETSC_TRUE;
  jac->rcheck    = PETSC_TRUE;
  jac->patchres  = PETSC_TRUE;

  pc->ops->apply           = PCApply_VPatch;
  pc->ops->applytranspose  = PCApplyTranspose_VPatch;
  pc->ops->applyrichardson = PCApplyRichardson_VPatch;
  pc->ops->setup           = PCSetUp_VPatch;
  pc->ops->reset           = PCReset_VPatch;
  pc->ops->destroy         = PCDestroy_VPatch;
  pc->ops->setfromoptions  = PCSetFromOptions_VPatch;
  pc->ops->view            = PCView_VPatch;
  pc->ops->presolve        = PCPreSolve_VPatch;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetSweep_C", PCVPatchSetSweep_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetRanks_C", PCVPatchSetRanks_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetType_C", PCVPatchSetType_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetKernel_C", PCVPatchSetKernel_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetDamping_C", PCVPatchSetDamping_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetLocalSolver_C", PCVPatchSetLocalSolver_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetPrecision_C", PCVPatchSetPrecision_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetCorrection_C", PCVPatchSetCorrection_VPatch));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVPatchSetColorOrder_C", PCVPatchSetColorOrder_VPatch));
  PetscFunctionReturn(PETSC_SUCCESS);
}
