/*
  PCVPATCH: the multiplicative colored vertex-patch smoother with exact local solves by fast
  diagonalization, for the operators of a DMQBOX (host glue; the kernel is vpatch_cpu.c).

  Provides PCApply (zero initial guess), PCApplyTranspose (reversed colors), PCApplyRichardson
  (in-place sweeps from the current iterate, what a KSPRICHARDSON level smoother of PCMG uses, with
  no separate global residual), PCView and PCSetFromOptions.

  Parallel: each rank processes the patches of the vertices at the lower corners of its cells; the
  ghost values are updated between colors, so the sweep is exactly multiplicative on any number of
  ranks and the iterates do not depend on the partition.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petsc/private/pcimpl.h>
#include <petscsf.h>
#include <lapacke.h>

const char *const PCVPatchSweeps[]       = {"forward", "backward", "symmetric", "PCVPatchSweep", "PC_VPATCH_SWEEP_", NULL};
const char *const PCVPatchTypes[]        = {"multiplicative", "additive", "PCVPatchType", "PC_VPATCH_", NULL};
const char *const PCVPatchKernels[]      = {"global", "separate", "fused", "PCVPatchKernel", "PC_VPATCH_KERNEL_", NULL};
const char *const VPPrecisions[]         = {"double", "single", "VPPrecision", "VP_PRECISION_", NULL};
const char *const PCVPatchLocalSolvers[] = {"fdm", "dense", "cg", "PCVPatchLocalSolver", "PC_VPATCH_LOCAL_", NULL};
const char *const PCVPatchRanksTypes[]   = {"exact", "relaxed", "PCVPatchRanks", "PC_VPATCH_RANKS_", NULL};
const char *const PCVPatchSurrogates[]   = {"pointmax", "cellmax", "mean", "PCVPatchSurrogate", "PC_VPATCH_SURROGATE_", NULL};
const char *const PCVPatchCorrections[]  = {"none", "mixed", "all", "PCVPatchCorrection", "PC_VPATCH_CORRECTION_", NULL};

typedef struct {
  PCVPatchSweep       sweep;      /* color order of one smoothing step */
  PCVPatchType        type;       /* multiplicative (colored) or additive */
  PetscReal           damping;    /* additive: the correction is scaled by this (0: not set, 1/2^d) */
  PetscBool           kernelset;  /* -pc_vpatch_kernel or -pc_vpatch_patches_per_block given (GPU only: noted when the CPU path runs) */
  PetscScalar         scale;      /* the preconditioning matrix is scale * (w.mass M + w.stiff K), scale = its mass + stiffness weights */
  VPWeights           opw;        /* the operator's weights over scale (w.mass + w.stiff = 1): what the patch solves invert */
  Vec                 bs;         /* b / scale, when scale != 1 */
  PetscScalar        *work;       /* CPU path: one patch's work arrays (VPPatchWorkSize()) */
  Vec                 r;          /* Richardson: the residual, where the caller gives no work vector */
  PetscBool           rcheck;     /* Richardson with its > 1: the true residual after each sweep (-pc_vpatch_richardson_check) */
  PetscBool           rinfo;      /* PetscInfo() has said once that the check runs */
  PCVPatchCorrection  correction; /* Richardson from a nonzero iterate: in place, or the sweeps on the correction of b - A x */
  Vec                 dcorr;      /* that correction */
  PetscInt            order[8];   /* the colors of a forward pass in turn (-pc_vpatch_colors; backward: reversed) */
  PetscInt            norder;     /* entries set in order (0: the colors 0, 1, ..., 2^d - 1) */
  PCVPatchLocalSolver local;      /* fast diagonalization, stored dense LU, or (mapped) CG steps on the true patch operator */
  DM                  dm;         /* the DMQBOX of the operator (referenced) */
  VPPatchOp           op;         /* 1D patch matrices, eigenvectors and eigenvalues */
  PetscScalar        *LU;         /* dense LU of the patch matrix (local solver dense) */
  int                *piv;        /* its pivots */
  Vec                 bl;         /* ghosted right-hand side, from the DM's pool during an apply (PCVPatchGetLocal()) */
  Vec                 xl;         /* ghosted iterate, likewise */
  Vec                 dl;         /* ghosted correction of one color (additive, kernel global), likewise */
  Vec                 w;          /* global work vector (additive Richardson) */
  PCVPatchKernel      kernel;     /* GPU kernel variant */
  PetscInt            ppb;        /* GPU: patches per thread block (0: the default for the degree) */
  VPPrecision         precision;  /* GPU arithmetic of the patch kernels */
  Mat                 A;          /* the level operator (the PC's Pmat, not referenced): residuals of kernel global */
  PetscBool           cuda;       /* the DM's vectors live on the GPU: the CUDA kernels run */
  PetscReal          *scratch;    /* device buffer of the patch residuals of one color (kernel separate) */
  PetscBool           overlap;    /* several ranks: the exchange of a color travels while the inner patches are solved */
  PCVPatchRanks       ranks;      /* several ranks: exact (one exchange per group of colors, one rank's iterates) or relaxed (none inside the sweep) */
  VPDGPatch1D         dgp[3];     /* discontinuous DMQBOX: the 2-cell pencils of the DG vertex patches per direction */
  Mat                 Adg;        /* discontinuous DMQBOX: the SIPG operator of the DM (each color's residual) */
  PetscReal          *d_dgQ[3];   /* discontinuous DMQBOX, GPU: the device copies of dgp's eigenvectors and eigenvalues */
  PetscReal          *d_dglam[3];
  PetscBool           dgfused;    /* discontinuous DMQBOX, GPU, one rank: each color's residual computed in the patch kernel */
  PetscBool           dglines;    /* discontinuous DMQBOX, GPU, 3D: one thread per 1D line of a patch (else one per unknown) */
  PetscReal          *dgref;      /* discontinuous DMQBOX, GPU, 3D: the interior patches' 1D data at h = 1 (VPDGPatchColor_CUDA()) */
  PetscBool           surrogate;  /* a mapped DMQBOX (or one with a coefficient): inexact local solves of a separable surrogate, residuals by MatMult */
  PCVPatchSurrogate   surtype;    /* how the surrogate is scaled (-pc_vpatch_surrogate) */
  PetscBool           surtypeset; /* -pc_vpatch_surrogate given (else the local solver cg takes mean) */
  PetscInt            localits;   /* local solver cg: CG steps per patch solve */
  PetscReal          *pgeo;       /* local solver cg with a layer of cells below this rank's: the factors of both (VPPatchLocal); else the DM's own are read */
  PetscScalar        *pdiag;      /* local solver cg, CPU: the operator's diagonal, ghosted local */
  Vec                 diagl;      /* local solver cg, GPU: the same in a ghosted CUDA vector */
  PetscReal          *d_pgeo;     /* local solver cg, GPU, with a layer of cells below this rank's: pgeo on the device */
  const PetscReal    *d_cggeo;    /* local solver cg, GPU: the factors the kernel reads (d_pgeo, or the DM's own) */
  VPPatchCGTables     cgt;        /* local solver cg, GPU: the kernel's tables */
  PetscReal          *pg;         /* surrogate: per vertex of this rank (VPPatchVertexBox()) the factors g_0, g_1, g_2 of its patch */
  PetscReal          *d_pg;       /* their device copy */
  PetscScalar        *pLU;        /* local solver dense on a mapped DMQBOX: per vertex its patch's LU ((2k-1)^d square) */
  int                *ppiv;       /* its pivots */
  VPPatchLocal        plocal;     /* what the CPU kernel reads: pg, or pLU and ppiv */
} PC_VPatch;

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
      PetscCall(DMQBoxCreateSIPGShell_Private(pdm, &L));
    else
      PetscCall(DMQBoxCreateOperatorShell_Private(pdm, &stiff, &L));
    if (!q->dg && !DMQBoxIsGeneral_Private(q)) PetscCall(DMQBoxCreateOperatorShell_Private(pdm, &mass, &M)); /* the mass term: Cartesian, continuous */
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
    hasmass = (PetscBool)!!M;
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

/* 1D patch matrices of two cells of size h, and the generalized eigenproblem of the interior block.
   The interior block is symmetric under the reflection i -> ni-1-i (the Gauss-Lobatto nodes are), so it maps even
   vectors to even and odd to odd: the eigenproblem is solved on the even subspace (dimension k) and on the odd one
   (k-1) apart, and S = [even eigenvectors | odd eigenvectors]. Any eigenvector order gives the same solve; this one
   lets the CUDA kernels apply S and S^T by even-odd decomposition (about half the multiply-adds, vpatch.cu) */
static PetscErrorCode PCVPatchSetUpDirection(VPPatchOp *op, const VPBasis1D *b, const VPWeights *w, PetscInt d, PetscReal h)
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
  jac->d_cggeo = NULL;
  PetscCall(PetscMemzero(&jac->plocal, sizeof(jac->plocal)));
  PetscCall(VPDeviceFree_Private(&jac->d_pg));
  jac->op.LU  = NULL;
  jac->op.piv = NULL;
  PetscCall(DMDestroy(&jac->dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* node r (lexicographic among the cell's (k+1)^d) of a cell whose first node sits at off[] in its patch: its index among
   the patch's (2k-1)^d interior nodes, or -1 on the patch's boundary */
static inline PetscInt PatchInterior(PetscInt dim, PetscInt k, const PetscInt off[3], PetscInt r, PetscInt n1)
{
  PetscInt p[3] = {off[0] + r % n1, off[1] + (r / n1) % n1, dim == 3 ? off[2] + r / (n1 * n1) : 1}, ni = 2 * k - 1;
  for (PetscInt d = 0; d < dim; d++)
    if (p[d] < 1 || p[d] > ni) return -1;
  return (p[0] - 1) + ni * ((p[1] - 1) + (dim == 3 ? ni * (p[2] - 1) : 0));
}

/* the factors G of cell c of this rank's cells or the layer below them: a pointer into the DM's (owned cells), or
   computed into G (work: the scratch of DMQBoxCellFactors_Private()) */
static PetscErrorCode PCVPatchCellFactors(PC_VPatch *jac, const PetscReal *geo, const PetscInt c[3], PetscReal *G, PetscReal *work, const PetscReal **Gc)
{
  const VPGrid *g     = &((DM_QBox *)jac->dm->data)->grid;
  PetscBool     owned = PETSC_TRUE;
  char          msg[1024];

  PetscFunctionBegin;
  for (PetscInt d = 0; d < g->dim; d++)
    if (c[d] < g->cs[d]) owned = PETSC_FALSE;
  if (owned)
    *Gc = geo + (((c[2] - g->cs[2]) * g->cm[1] + c[1] - g->cs[1]) * g->cm[0] + c[0] - g->cs[0]) * VPGeometryComponents(g->dim) * VPGridCellNodes(g);
  else {
    PetscCall(DMQBoxCellFactors_Private(jac->dm, c, G, work, msg, sizeof(msg)));
    PetscCheck(!msg[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s", msg); /* the owner found it too, in DMCreateMatrix() */
    *Gc = G;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The separable surrogate of each patch of a mapped DMQBOX (or one with a coefficient): the patch operator is replaced by
  sum_d g_d Khat_d (x) Mhat_(others) on the unit reference patch, whose inverse is fast diagonalization with the unit
  patch's eigenvectors and the eigenvalues sum_d g_d lamhat_d. g_d comes from the diagonal entry a det(J) (J^-1 J^-T)_dd
  over the patch's 2^d cells (-pc_vpatch_surrogate): its largest value at a quadrature point (pointmax), the largest of its
  integrals over a cell (cellmax), or the mean of those integrals (mean; on Cartesian cells with a constant coefficient,
  vol / h_d^2 a: the exact patch solve). The off-diagonal entries of G and the variation inside the patch are left out;
  the residual is the true one. The sweep converges when the surrogate is not much smaller than the patch matrix
  (2 Atilde_v > A_v): the largest point value assures that where the coefficient varies inside a cell (coarse levels),
  at the price of a slower sweep where it varies strongly (bench/RESULTS.md, session 12).
  Cells owned by another process (the layer below this rank's cells) get their factors computed here.
*/
static PetscErrorCode PCVPatchSetUpSurrogate(PC_VPatch *jac)
{
  DM_QBox         *q  = (DM_QBox *)jac->dm->data;
  const VPGrid    *g  = &q->grid;
  const VPBasis1D *b  = &q->basis;
  PetscInt         nd = VPGridCellNodes(g), ncomp = VPGeometryComponents(g->dim), dim = g->dim, n1 = g->k + 1, vlo[3], nv[3], nvert;
  const PetscReal *geo;
  PetscReal       *G, *work;
  PetscScalar     *Ae;
  PetscInt         nt = (2 * g->k - 1) * (2 * g->k - 1) * (g->dim == 3 ? 2 * g->k - 1 : 1), clo[3], cn[3], ncb = 1;
  PetscReal       *cgv;                 /* per cell of the box [clo, clo + cn) (this rank's cells and the layer below): the three values */
  PetscBool        below = PETSC_FALSE; /* the box has a layer of cells below this rank's */

  PetscFunctionBegin;
  PetscCall(DMQBoxGetGeometry_Private(jac->dm, &geo, NULL));
  VPPatchVertexBox(g, vlo, nv);
  for (PetscInt d = 0; d < 3; d++) {
    clo[d] = d < dim ? PetscMax(g->cs[d] - 1, 0) : 0;
    cn[d]  = d < dim ? g->cs[d] + g->cm[d] - clo[d] : 1;
    ncb *= cn[d];
    if (clo[d] < g->cs[d]) below = PETSC_TRUE;
  }
  nvert = nv[0] * nv[1] * nv[2];
  PetscCall(PetscCalloc1(3 * PetscMax(nvert, 1), &jac->pg));
  PetscCall(PetscMalloc3(ncomp * nd, &G, PetscMax(2 * dim + dim * dim + 2, dim * nd) * nd, &work, jac->local == PC_VPATCH_LOCAL_DENSE ? nd * nd : 1, &Ae));
  if (jac->local == PC_VPATCH_LOCAL_DENSE) PetscCall(PetscMalloc2(nt * nt * PetscMax(nvert, 1), &jac->pLU, nt * PetscMax(nvert, 1), &jac->ppiv));
  if (jac->local == PC_VPATCH_LOCAL_CG && below) { /* local solver cg: the factors of the layer below too, in one box */
    PetscCall(PetscMalloc1(ncb * ncomp * nd, &jac->pgeo));
    for (PetscInt cz = 0, ic = 0; cz < cn[2]; cz++)
      for (PetscInt cy = 0; cy < cn[1]; cy++)
        for (PetscInt cx = 0; cx < cn[0]; cx++, ic++) {
          PetscInt         c[3] = {clo[0] + cx, clo[1] + cy, clo[2] + cz};
          const PetscReal *Gc;
          PetscCall(PCVPatchCellFactors(jac, geo, c, G, work, &Gc));
          PetscCall(PetscArraycpy(jac->pgeo + ic * ncomp * nd, Gc, ncomp * nd));
        }
  }
  /* each cell's values once (a cell is in 2^d patches): the largest point value or the integral of G_dd */
  PetscCall(PetscMalloc1(3 * ncb, &cgv));
  for (PetscInt cz = 0, ic = 0; cz < cn[2]; cz++)
    for (PetscInt cy = 0; cy < cn[1]; cy++)
      for (PetscInt cx = 0; cx < cn[0]; cx++, ic++) {
        PetscInt         c[3] = {clo[0] + cx, clo[1] + cy, clo[2] + cz};
        const PetscReal *Gc   = jac->pgeo ? jac->pgeo + ic * ncomp * nd : NULL;
        if (!Gc) PetscCall(PCVPatchCellFactors(jac, geo, c, G, work, &Gc));
        for (PetscInt d = 0; d < 3; d++) {
          PetscReal gd = 0;
          if (d < dim && jac->surtype == PC_VPATCH_SURROGATE_POINTMAX) /* the entry itself: the factor over the point's weight */
            for (PetscInt qp = 0; qp < nd; qp++) gd = PetscMax(gd, Gc[d * nd + qp] / (b->qwts[qp % n1] * b->qwts[(qp / n1) % n1] * (dim == 3 ? b->qwts[qp / (n1 * n1)] : 1.0)));
          else if (d < dim) /* its integral over the cell */
            for (PetscInt qp = 0; qp < nd; qp++) gd += Gc[d * nd + qp];
          cgv[3 * ic + d] = gd;
        }
      }
  for (PetscInt vz = 0, iv = 0; vz < nv[2]; vz++)
    for (PetscInt vy = 0; vy < nv[1]; vy++)
      for (PetscInt vx = 0; vx < nv[0]; vx++, iv++) {
        PetscInt v[3] = {vlo[0] + vx, vlo[1] + vy, vlo[2] + vz};
        if (jac->pLU) PetscCall(PetscArrayzero(jac->pLU + nt * nt * iv, nt * nt));
        for (PetscInt cc = 0; cc < (1 << dim); cc++) {
          PetscInt c[3] = {0, 0, 0}, ic;
          for (PetscInt d = 0; d < dim; d++) c[d] = v[d] - 1 + ((cc >> d) & 1);
          ic = ((c[2] - clo[2]) * cn[1] + c[1] - clo[1]) * cn[0] + c[0] - clo[0];
          if (jac->pLU) { /* the exact patch matrix: this cell's matrix on the patch's interior nodes */
            PetscInt         n1d = n1 * n1 * (dim == 3 ? n1 : 1), off[3] = {0, 0, 0};
            const PetscReal *Gc;
            PetscCall(PCVPatchCellFactors(jac, geo, c, G, work, &Gc));
            PetscCall(VPMappedCellMatrix_CPU(dim, b, Gc, Ae, work));
            for (PetscInt d = 0; d < dim; d++) off[d] = ((cc >> d) & 1) * g->k; /* the cell's first node in the patch */
            for (PetscInt r = 0; r < n1d; r++) {
              PetscInt pr = PatchInterior(dim, g->k, off, r, n1);
              if (pr < 0) continue;
              for (PetscInt t = 0; t < n1d; t++) {
                PetscInt pt = PatchInterior(dim, g->k, off, t, n1);
                if (pt >= 0) jac->pLU[nt * nt * iv + pr * nt + pt] += Ae[r * n1d + t];
              }
            }
          }
          for (PetscInt d = 0; d < dim; d++) {
            if (jac->surtype == PC_VPATCH_SURROGATE_MEAN)
              jac->pg[3 * iv + d] += cgv[3 * ic + d] / (1 << dim);
            else
              jac->pg[3 * iv + d] = PetscMax(jac->pg[3 * iv + d], cgv[3 * ic + d]);
          }
        }
        if (jac->pLU) {
          lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)nt, (lapack_int)nt, jac->pLU + nt * nt * iv, (lapack_int)nt, jac->ppiv + nt * iv);
          PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrf of the patch matrix of vertex (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") failed: %d", v[0], v[1], v[2], (int)info);
        }
      }
  if (jac->local == PC_VPATCH_LOCAL_CG) { /* the factors of the cells the patches touch (pgeo, or the DM's own), and the diagonal */
    Vec dg, dl;
    for (PetscInt d = 0; d < 3; d++) {
      jac->plocal.gclo[d] = below ? clo[d] : g->cs[d];
      jac->plocal.gcm[d]  = below ? cn[d] : g->cm[d];
    }
    PetscCall(DMGetGlobalVector(jac->dm, &dg));
    PetscCall(DMGetLocalVector(jac->dm, &dl));
    PetscCall(MatGetDiagonal(jac->A, dg));
    if (jac->scale != (PetscScalar)1.0) PetscCall(VecScale(dg, 1.0 / jac->scale));
    PetscCall(DMGlobalToLocal(jac->dm, dg, INSERT_VALUES, dl));
    if (jac->cuda) { /* kept: the kernel reads its device array */
      PetscCall(VecDuplicate(dl, &jac->diagl));
      PetscCall(VecCopy(dl, jac->diagl));
    } else {
      const PetscScalar *a;
      PetscInt           nl;
      PetscCall(VecGetLocalSize(dl, &nl));
      PetscCall(PetscMalloc1(nl, &jac->pdiag));
      PetscCall(VecGetArrayRead(dl, &a));
      PetscCall(PetscArraycpy(jac->pdiag, a, nl));
      PetscCall(VecRestoreArrayRead(dl, &a));
    }
    PetscCall(DMRestoreLocalVector(jac->dm, &dl));
#if defined(PETSC_HAVE_CUDA)
    if (jac->cuda) { /* the kernel's tables; its factors: the DM's own, or with a layer of cells below, pgeo */
      VPPatchCGTables *t  = &jac->cgt;
      PetscInt         ni = 2 * g->k - 1, np = 2 * g->k + 1, alo[3], anv[3];
      PetscCall(PetscMemzero(t, sizeof(*t)));
      t->k   = (int)g->k;
      t->its = (int)jac->localits;
      VPPatchVertexBox(g, alo, anv);
      for (PetscInt d = 0; d < 3; d++) {
        t->gclo[d] = (int)jac->plocal.gclo[d];
        t->gcm[d]  = (int)jac->plocal.gcm[d];
        t->alo[d]  = (int)alo[d];
        t->anv[d]  = (int)anv[d];
      }
      for (PetscInt i = 0; i < ni; i++) {
        t->lam[i] = jac->op.lam[0][i];
        t->Kd[i]  = jac->op.Kp[0][(i + 1) * np + i + 1];
        t->Md[i]  = jac->op.Mp[0][(i + 1) * np + i + 1];
        for (PetscInt j = 0; j < ni; j++) t->S[i * ni + j] = jac->op.S[0][i * ni + j];
      }
      for (PetscInt qq = 0; qq < n1; qq++)
        for (PetscInt i = 0; i < n1; i++) {
          t->cS[qq * VPATCH_MAX_N1D + i] = b->S[qq * n1 + i];
          t->cD[qq * VPATCH_MAX_N1D + i] = b->D[qq * n1 + i];
        }
      if (below) {
        PetscCall(VPDeviceCopy_Private(jac->pgeo, (size_t)(ncb * ncomp * nd), &jac->d_pgeo));
        jac->d_cggeo = jac->d_pgeo;
      } else
        PetscCall(DMQBoxGetGeometry_Private(jac->dm, NULL, &jac->d_cggeo));
    }
#endif
    PetscCall(DMRestoreGlobalVector(jac->dm, &dg));
    jac->plocal.its   = jac->localits;
    jac->plocal.basis = b;
    jac->plocal.geo   = below ? jac->pgeo : geo;
    jac->plocal.diag  = jac->pdiag;
  }
  PetscCall(PetscFree(cgv));
  PetscCall(PetscFree3(G, work, Ae));
  jac->plocal.g   = jac->pLU ? NULL : jac->pg;
  jac->plocal.LU  = jac->pLU;
  jac->plocal.piv = jac->ppiv;
  if (jac->cuda) PetscCall(VPDeviceCopy_Private(jac->pg, (size_t)3 * (size_t)PetscMax(nvert, 1), &jac->d_pg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The interior patches' 1D data at h = 1 (the patch of vertex 2 of a 1D mesh of four cells: interior cells on both
   sides and beyond), for the GPU lines kernel's constant tables (vpatch_dg.cu, VPDGRef): the patch rows of L against
   the four cells, the pencil's eigenvectors Q (rows: the patch's nodes, columns: the modes) and eigenvalues, the cell
   mass. The patch is symmetric under the reflection of its two cells, i -> 2N - 1 - i, so every mode is even or odd
   under it; the columns go in that order (N even, then N odd, eigenvalues alike), so that the kernel applies Q and Q^T
   by halves (half the multiply-adds). Where the modes do not split that way (an eigenvalue shared by an even and an odd
   mode), *ref stays NULL and the kernel reads every patch's own data. */
static PetscErrorCode PCVPatchDGReference(const DM_QBox *q, PetscReal **ref)
{
  const PetscInt N = q->degree + 1, P2 = 2 * N;
  VPDG1D         dg;
  VPDGPatch1D    p;
  PetscReal     *t, *Q, *lam, qmax = 0;
  PetscInt       order[2 * (VPATCH_MAX_DEGREE_3D + 1)], ne = 0, no = 0;
  PetscBool      split = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscFree(*ref));
  PetscCall(VPDG1DSetUp(&q->basis, 4, 1.0, q->dgpenalty, &dg));
  PetscCall(VPDGPatch1DSetUp(&dg, &p));
  Q   = p.Q + P2 * P2; /* vertex 2 */
  lam = p.lam + P2;
  for (PetscInt i = 0; i < P2 * P2; i++) qmax = PetscMax(qmax, PetscAbsReal(Q[i]));
  for (PetscInt c = 0; c < P2 && split; c++) { /* even modes first, then odd */
    PetscReal de = 0, dd = 0;
    for (PetscInt i = 0; i < P2; i++) {
      de = PetscMax(de, PetscAbsReal(Q[(P2 - 1 - i) * P2 + c] - Q[i * P2 + c]));
      dd = PetscMax(dd, PetscAbsReal(Q[(P2 - 1 - i) * P2 + c] + Q[i * P2 + c]));
    }
    if (de <= 1e-10 * qmax && ne < N)
      order[ne++] = c;
    else if (dd <= 1e-10 * qmax && no < N)
      order[N + no++] = c;
    else
      split = PETSC_FALSE;
  }
  if (split) {
    PetscCall(PetscMalloc1(P2 * 4 * N + P2 * P2 + P2 + N * N, ref));
    t = *ref;
    for (PetscInt r = 0; r < P2; r++)
      for (PetscInt c = 0; c < 4 * N; c++) {
        const PetscInt o = c / N - 1 - r / N;
        *t++             = (o >= -1 && o <= 1) ? VPDGBlockEntry(&dg, 1 + r / N, o, r % N, c % N) : 0;
      }
    for (PetscInt i = 0; i < P2; i++)
      for (PetscInt c = 0; c < P2; c++) *t++ = Q[i * P2 + order[c]];
    for (PetscInt c = 0; c < P2; c++) *t++ = lam[order[c]];
    for (PetscInt i = 0; i < N * N; i++) *t++ = dg.M[i];
  } else
    PetscCall(PetscInfo(NULL, "DG Q_%" PetscInt_FMT ": the interior patch's modes are not all even or odd; every patch reads its own data\n", q->degree));
  PetscCall(VPDGPatch1DDestroy(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_VPatch(PC pc)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;
  DM         dm  = NULL;
  DM_QBox   *q;

  PetscFunctionBegin;
  PetscCall(PCReset_VPatch(pc));
  PetscCall(PetscLogEventBegin(VPATCH_PatchSetUp, pc, 0, 0, 0));
  PetscCall(PCVPatchGetOperator(pc, &dm, &jac->opw));
  jac->scale = jac->opw.mass + jac->opw.stiff;
  jac->opw.mass /= PetscRealPart(jac->scale);
  jac->opw.stiff /= PetscRealPart(jac->scale);
  q = (DM_QBox *)dm->data;
  PetscCheck(jac->opw.mass == 0 || (!q->dg && !DMQBoxIsGeneral_Private(q)), PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PCVPATCH: a mass term on the discontinuous space, a mapped box or with a coefficient is not implemented yet (the Cartesian continuous space has it)");
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
  if (q->dg) { /* the DG vertex patches: all DoFs of the 2^d cells around an interior vertex, exact by fast diagonalization */
    MPI_Comm comm = PetscObjectComm((PetscObject)pc);
    PetscCheck(!jac->norder, comm, PETSC_ERR_SUP, "PCVPATCH -pc_vpatch_colors applies to the continuous space of DMQBOX; the DG vertex patches keep the colors 0, 1, ..., 2^d - 1");
    PetscCheck(jac->local == PC_VPATCH_LOCAL_FDM, comm, PETSC_ERR_SUP, "PCVPATCH on the discontinuous space of DMQBOX has the fdm local solver (exact) so far, not %s", PCVPatchLocalSolvers[jac->local]);
    PetscCheck(jac->cuda || jac->precision == VP_PRECISION_DOUBLE, comm, PETSC_ERR_SUP, "PCVPATCH -pc_vpatch_precision single runs on the GPU only: use -dm_vec_type cuda, or double precision");
    PetscCheck(!jac->cuda || jac->kernel != PC_VPATCH_KERNEL_SEPARATE, comm, PETSC_ERR_SUP,
               "PCVPATCH on the discontinuous space of DMQBOX has the GPU kernels fused (each patch computes its residual; one rank) and global (each color's residual by MatMult), not separate: use -pc_vpatch_kernel fused or global");
    PetscCheck(!jac->cuda || q->samelayout || !jac->kernelset || jac->kernel != PC_VPATCH_KERNEL_FUSED || jac->type == PC_VPATCH_ADDITIVE, comm, PETSC_ERR_SUP,
               "PCVPATCH on the discontinuous space of DMQBOX: -pc_vpatch_kernel fused computes each patch's residual from a ghost layer of two cells, which runs on one rank; on several ranks use -pc_vpatch_kernel global (the default there)");
    jac->dgfused = (PetscBool)(jac->cuda && q->samelayout && jac->kernel == PC_VPATCH_KERNEL_FUSED && jac->type == PC_VPATCH_MULTIPLICATIVE);
    if (jac->damping <= 0) jac->damping = q->dim == 3 ? 0.125 : 0.25; /* additive: every DoF of an inner cell lies in 2^d patches */
    for (PetscInt d = 0; d < q->dim; d++) {
      PetscCall(VPDGPatch1DSetUp(&q->dg1d[d], &jac->dgp[d]));
      if (jac->cuda) {
        const PetscInt P2 = 2 * (q->degree + 1);
        PetscCall(VPDeviceCopy_Private(jac->dgp[d].Q, (size_t)(q->cells[d] - 1) * P2 * P2, &jac->d_dgQ[d]));
        PetscCall(VPDeviceCopy_Private(jac->dgp[d].lam, (size_t)(q->cells[d] - 1) * P2, &jac->d_dglam[d]));
      }
    }
    if (jac->cuda && q->dim == 3 && q->degree <= VPATCH_MAX_DEGREE_3D) PetscCall(PCVPatchDGReference(q, &jac->dgref));
    PetscCall(DMQBoxCreateSIPGShell_Private(dm, &jac->Adg));
    PetscCall(DMCreateGlobalVector(dm, &jac->r));
    PetscCall(VecDuplicate(jac->r, &jac->w));
    if (jac->scale != (PetscScalar)1.0) PetscCall(DMCreateGlobalVector(dm, &jac->bs));
    PetscCall(PetscLogEventEnd(VPATCH_PatchSetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  jac->op.dim = q->dim;
  jac->op.k   = q->degree;
  if (jac->damping <= 0) jac->damping = q->dim == 3 ? 0.125 : 0.25;
  if (jac->scale != (PetscScalar)1.0) PetscCall(DMCreateGlobalVector(dm, &jac->bs));
  jac->surrogate = DMQBoxIsGeneral_Private(q);
  if (jac->surrogate) {
    PetscCheck(jac->local != PC_VPATCH_LOCAL_DENSE || !jac->cuda, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVPATCH on a mapped DMQBOX (or one with a coefficient): -pc_vpatch_local_solver dense (each patch's exact matrix, LU-factored, for verification) runs on the CPU only: use -dm_vec_type standard, or the default fdm (the separable "
               "surrogate)");
    if (jac->local == PC_VPATCH_LOCAL_CG && !jac->surtypeset) jac->surtype = PC_VPATCH_SURROGATE_MEAN; /* scaled by the diagonal, the mean is the better base (bench/RESULTS.md, session 12) */
    PetscCheck(!jac->cuda || !jac->kernelset || jac->kernel == PC_VPATCH_KERNEL_GLOBAL, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVPATCH on a mapped DMQBOX (or one with a coefficient) takes each color's residual from the operator (MatMult): -pc_vpatch_kernel %s computes it for the Cartesian Laplacian; use -pc_vpatch_kernel global (the default here)",
               PCVPatchKernels[jac->kernel]);
    jac->kernel = PC_VPATCH_KERNEL_GLOBAL;
  }
  /* the surrogate's local solves use the unit patch (its factors carry the geometry) */
  for (PetscInt d = 0; d < q->dim; d++) PetscCall(PCVPatchSetUpDirection(&jac->op, &q->basis, jac->surrogate ? NULL : &jac->opw, d, jac->surrogate ? 1.0 : q->grid.h[d]));
  if (jac->local == PC_VPATCH_LOCAL_DENSE && !jac->surrogate) PetscCall(PCVPatchSetUpDense(jac));
  PetscCall(PetscMalloc1(VPPatchWorkSize(q->dim, q->degree), &jac->work));
  if (jac->surrogate) {
    PetscCall(PCVPatchSetUpSurrogate(jac));
    if (jac->type == PC_VPATCH_MULTIPLICATIVE && !jac->cuda) PetscCall(DMCreateGlobalVector(dm, &jac->w)); /* the residual of each color */
  }
  if (!jac->cuda && jac->kernelset) PetscCall(PetscInfo(pc, "-pc_vpatch_kernel and -pc_vpatch_patches_per_block choose GPU kernels; the CPU path runs here and ignores them\n"));
  PetscCheck(jac->cuda || jac->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVPATCH -pc_vpatch_precision single runs on the GPU only: use -dm_vec_type cuda, or double precision");
  if (jac->cuda) {
    PetscInt  ni = 2 * q->degree - 1, dim = q->dim;
    VPPatchOp hat;

    PetscCheck(jac->type == PC_VPATCH_MULTIPLICATIVE && jac->local != PC_VPATCH_LOCAL_DENSE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVPATCH on CUDA vectors runs -pc_vpatch_type multiplicative with -pc_vpatch_local_solver fdm or cg; the %s %s variant runs on the CPU only (-dm_vec_type standard)", PCVPatchTypes[jac->type], PCVPatchLocalSolvers[jac->local]);
    PetscCheck(!(jac->surrogate && jac->local == PC_VPATCH_LOCAL_CG) || jac->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
               "PCVPATCH local solver cg on the GPU computes in double precision: use -pc_vpatch_precision double");
    /* the kernels take the reference matrices (h = 1) and scale them by the cell sizes (vpatch.cu) */
    PetscCall(PCVPatchSetUpDirection(&hat, &q->basis, NULL, 0, 1.0));
    PetscCall(VPPatchSetUp_CUDA(q->degree, q->basis.M, q->basis.K, hat.S[0], hat.lam[0]));
    if (jac->kernel == PC_VPATCH_KERNEL_SEPARATE) { /* at most prod_d (cm_d/2 + 1) patches of one color */
      size_t n = 1;
      for (PetscInt d = 0; d < dim; d++) n *= (size_t)(q->grid.cm[d] / 2 + 1) * (size_t)ni;
      PetscCall(VPDeviceAlloc_Private(n, &jac->scratch));
    }
    if (jac->kernel == PC_VPATCH_KERNEL_GLOBAL) PetscCall(DMCreateGlobalVector(dm, &jac->w));
  }
  if (!q->samelayout && jac->type == PC_VPATCH_MULTIPLICATIVE && !jac->surrogate && !(jac->cuda && jac->kernel == PC_VPATCH_KERNEL_GLOBAL) && jac->ranks == PC_VPATCH_RANKS_EXACT)
    for (PetscInt c = 0; c < (1 << q->dim); c++) PetscCall(DMQBoxColorExchangeSetUp_Private(dm, c)); /* several ranks: the exchange of each color (PCVPatchStepLocal()) */
  PetscCall(PetscLogEventEnd(VPATCH_PatchSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghosted work vectors of an apply, from the DM's pool of local vectors (shared with the level's operator and
   transfers, so that a level holds two or three ghosted vectors, not one set per object) */
static PetscErrorCode PCVPatchGetLocal(PC_VPatch *jac, PetscBool x, PetscBool d)
{
  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(jac->dm, &jac->bl));
  if (x) PetscCall(DMGetLocalVector(jac->dm, &jac->xl));
  if (d) PetscCall(DMGetLocalVector(jac->dm, &jac->dl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVPatchRestoreLocal(PC_VPatch *jac)
{
  PetscFunctionBegin;
  PetscCall(DMRestoreLocalVector(jac->dm, &jac->bl));
  if (jac->xl) PetscCall(DMRestoreLocalVector(jac->dm, &jac->xl));
  if (jac->dl) PetscCall(DMRestoreLocalVector(jac->dm, &jac->dl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owned Dirichlet rows are solved exactly: x_B = b_B */
static PetscErrorCode PCVPatchBoundary(PC_VPatch *jac, Vec b, Vec x)
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
    PetscCall(VPOwnedBoundary_CUDA(g, 1.0, ba, xa, PETSC_FALSE));
  else {
    for (PetscInt pz = g->xs[2]; pz < g->xs[2] + g->xm[2]; pz++)
      for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
        for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++, i++) {
          PetscInt p[3] = {px, py, pz};
          if (VPGridIsBoundary(g, p)) xa[i] = ba[i];
        }
  }
  PetscCall(VecRestoreArrayAndMemType(x, &xa));
  PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the flops of one pass over the colors by the GPU kernels; zero: from x = 0, where the first color's fused kernels
   skip the residual (VPPatchZeroFirst_CUDA(); about 1/2^d of the patches) */
static PetscLogDouble VPFlopsPatchesGPU(PC_VPatch *jac, const VPGrid *g, PetscBool zero)
{
  PetscBool skip = (PetscBool)(zero && jac->kernel == PC_VPATCH_KERNEL_FUSED && VPPatchZeroFirst_CUDA(g->dim, g->k, (PetscBool)(jac->precision == VP_PRECISION_SINGLE)));
  return VPFlopsPatches(g) * (VPFlopsPatchGPU(g->dim, g->k) - (skip ? VPFlopsPatchGPUResidual(g->dim, g->k) / (1 << g->dim) : 0));
}

/* the color at position i of a pass: the order of -pc_vpatch_colors (default 0, 1, ..., nc - 1), reversed backward */
static inline PetscInt PCVPatchColor(const PC_VPatch *jac, PetscInt nc, PetscInt i, PetscBool reverse)
{
  const PetscInt j = reverse ? nc - 1 - i : i;
  return jac->norder ? jac->order[j] : j;
}

/* one pass over the colors on the device, x <- x + sum of patch corrections, where PCVPatchStepLocal() does not: on the
   global arrays of one rank, or with the kernel global (the residual of the whole level by MatMult before each color) */
static PetscErrorCode PCVPatchSweepColors(PC_VPatch *jac, Vec b, Vec x, PetscBool reverse, PetscBool global, PetscBool zero)
{
  const VPGrid      *g  = &((DM_QBox *)jac->dm->data)->grid;
  PetscInt           nc = g->dim == 3 ? 8 : 4;
  const PetscScalar *ba, *xa;
  PetscScalar       *da;

  PetscFunctionBegin;
  if (global) {
    /* one rank: the local box is the global vector. The kernels read b and x and add the corrections into x in
       place: patches of one color share no interior node, and a patch reads only its own nodes, so no patch of the
       color reads a value that another one writes. This skips the ghost updates of every color. */
    PetscScalar *xw;

    PetscCall(VecGetArrayReadAndMemType(b, &ba, NULL));
    PetscCall(VecGetArrayAndMemType(x, &xw, NULL));
    PetscCall(PetscLogGpuTimeBegin());
    for (PetscInt i = 0; i < nc; i++) PetscCall(VPPatchSmoothColor_CUDA(g, &jac->opw, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), PCVPatchColor(jac, nc, i, reverse), jac->kernel, jac->ppb, (PetscBool)(zero && i == 0), NULL, ba, xw, xw, jac->scratch));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecRestoreArrayAndMemType(x, &xw));
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  } else {
    PetscCall(PCVPatchGetLocal(jac, PETSC_TRUE, PETSC_TRUE));
    for (PetscInt i = 0; i < nc; i++) {      /* kernel global: the residual of the whole level, ghosted, then the solves */
      PetscCall(MatMult(jac->A, x, jac->w)); /* scale L x */
      if (jac->scale != (PetscScalar)1.0) PetscCall(VecScale(jac->w, 1.0 / jac->scale));
      PetscCall(VecAYPX(jac->w, -1.0, b));
      PetscCall(DMGlobalToLocal(jac->dm, jac->w, INSERT_VALUES, jac->bl));
      PetscCall(VecSet(jac->dl, 0.0));
      PetscCall(VecGetArrayReadAndMemType(jac->bl, &ba, NULL));
      PetscCall(VecGetArrayReadAndMemType(jac->xl, &xa, NULL));
      PetscCall(VecGetArrayAndMemType(jac->dl, &da, NULL));
      if (jac->cuda && jac->local == PC_VPATCH_LOCAL_CG && jac->surrogate) {
        const PetscScalar *dg;
        PetscCall(VecGetArrayReadAndMemType(jac->diagl, &dg, NULL));
        PetscCall(PetscLogGpuTimeBegin());
        PetscCall(VPPatchCGColor_CUDA(g, &jac->cgt, PCVPatchColor(jac, nc, i, reverse), jac->d_pg, jac->d_cggeo, dg, ba, da));
        PetscCall(PetscLogGpuTimeEnd());
        PetscCall(VecRestoreArrayReadAndMemType(jac->diagl, &dg));
      } else if (jac->cuda) {
        PetscCall(PetscLogGpuTimeBegin());
        PetscCall(VPPatchSmoothColor_CUDA(g, &jac->opw, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), PCVPatchColor(jac, nc, i, reverse), jac->kernel, jac->ppb, PETSC_FALSE, jac->d_pg, ba, xa, da, jac->scratch));
        PetscCall(PetscLogGpuTimeEnd());
      } else
        PetscCall(VPPatchSmoothColor_CPU(g, &jac->op, &jac->plocal, PCVPatchColor(jac, nc, i, reverse), PETSC_FALSE, ba, NULL, da, jac->work)); /* mapped DMQBOX on the CPU */
      PetscCall(VecRestoreArrayAndMemType(jac->dl, &da));
      PetscCall(VecRestoreArrayReadAndMemType(jac->xl, &xa));
      PetscCall(VecRestoreArrayReadAndMemType(jac->bl, &ba));
      PetscCall(DMLocalToGlobal(jac->dm, jac->dl, ADD_VALUES, x));
    }
    PetscCall(PCVPatchRestoreLocal(jac));
  }
  if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_CG) {
    if (jac->cuda)
      PetscCall(PetscLogGpuFlops(VPFlopsPatches(g) * VPFlopsPatchCG(g->dim, g->k, jac->localits)));
    else
      PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCG(g->dim, g->k, jac->localits)));
  } else if (jac->cuda)
    PetscCall(PetscLogGpuFlops(VPFlopsPatchesGPU(jac, g, zero)));
  else
    PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCPU(g->dim, g->k)));
  PetscCall(PCVPatchBoundary(jac, b, x));
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
    PetscCall(VPPatchSmoothColor_CUDA(&g, &jac->opw, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), c, jac->kernel, jac->ppb, zero, NULL, ba, xa, xa, jac->scratch));
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
  PetscCall(DMQBoxGhostedGet_Private(jac->dm, x, DMQBOX_GHOSTED_INOUT, PETSC_FALSE, &X));
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
      PetscCall(PetscLogGpuFlops(VPFlopsPatchesGPU(jac, g, pz)));
    else
      PetscCall(PetscLogFlops(VPFlopsPatches(g) * VPFlopsPatchCPU(g->dim, g->k)));
  }
  PetscCall(DMQBoxGhostedRestore_Private(jac->dm, &X));
  PetscCall(DMQBoxGhostedRestore_Private(jac->dm, &B));
  PetscCall(PCVPatchBoundary(jac, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device tables of the DG patch kernel */
static PetscErrorCode PCVPatchDGDevice(PC_VPatch *jac, const VPDG1D **d_dg, VPDGPatchDevice *pd)
{
  PetscFunctionBegin;
  PetscCall(DMQBoxGetDeviceDG_Private(jac->dm, d_dg, NULL));
  for (PetscInt d = 0; d < 3; d++) {
    pd->Q[d]   = jac->d_dgQ[d];
    pd->lam[d] = jac->d_dglam[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discontinuous space, GPU, one rank: per color one kernel computes every patch's residual b - A x and writes x +
   its correction into the other of x and w (x is read by neighbouring patches of the color, so it cannot change in
   place); the colors alternate between the two, and an even number of them ends in x */
static PetscErrorCode PCVPatchStepDGFused(PC_VPatch *jac, Vec b, Vec x, PetscBool reverse)
{
  const VPGrid      *g  = &((DM_QBox *)jac->dm->data)->grid;
  const PetscInt     nc = 1 << g->dim;
  const VPDG1D      *d_dg;
  VPDGPatchDevice    pd;
  const PetscScalar *ba, *sa;
  PetscScalar       *da;
  PetscMemType       mb, ms;

  PetscFunctionBegin;
  PetscCall(PCVPatchDGDevice(jac, &d_dg, &pd));
  for (PetscInt i = 0; i < nc; i++) {
    const PetscInt c   = PCVPatchColor(jac, nc, i, reverse);
    Vec            src = i % 2 ? jac->w : x, dst = i % 2 ? x : jac->w;
    PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
    PetscCall(VecGetArrayReadAndMemType(src, &sa, &ms));
    PetscCall(VecGetArrayWriteAndMemType(dst, &da, NULL));
    PetscCheck(PetscMemTypeDevice(mb) && PetscMemTypeDevice(ms), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PCVPATCH DG fused kernel: the vectors are not on the GPU (use the DM's CUDA vectors)");
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPDGPatchColor_CUDA(g, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), jac->dglines, jac->dgref, d_dg, &pd, c, ba, sa, da));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(VPDGColorPatches(g, c) * VPDGFlopsPatch(g->dim, g->k, PETSC_TRUE)));
    PetscCall(VecRestoreArrayWriteAndMemType(dst, &da));
    PetscCall(VecRestoreArrayReadAndMemType(src, &sa));
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  }
  PetscCheck(nc % 2 == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "an odd number of colors would end in the work vector");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discontinuous space: y = sum over the colors c0 .. c0 + n - 1 and their patches of R_v^T A_v^{-1} R_v r (the
   patches of one color are disjoint; VPDGPatchColor_CPU()). On several ranks the residual comes in with its ghost
   cells and the corrections, ghost cells included, are added out */
static PetscErrorCode PCVPatchDGColors(PC_VPatch *jac, Vec r, PetscInt c0, PetscInt n, Vec y)
{
  const VPGrid      *g    = &((DM_QBox *)jac->dm->data)->grid;
  const PetscBool    same = ((DM_QBox *)jac->dm->data)->samelayout;
  const PetscScalar *ra;
  PetscScalar       *wa;
  Vec                rl = r, wl = y;
  PetscMemType       mt;

  PetscFunctionBegin;
  if (!same) {
    PetscCall(DMGetLocalVector(jac->dm, &rl));
    PetscCall(DMGetLocalVector(jac->dm, &wl));
    PetscCall(DMGlobalToLocal(jac->dm, r, INSERT_VALUES, rl));
  }
  PetscCall(VecSet(wl, 0.0));
  PetscCall(VecGetArrayReadAndMemType(rl, &ra, &mt));
  PetscCall(VecGetArrayAndMemType(wl, &wa, NULL));
  if (PetscMemTypeDevice(mt)) {
    const VPDG1D   *d_dg;
    VPDGPatchDevice pd;
    PetscCall(PCVPatchDGDevice(jac, &d_dg, &pd));
    PetscCall(PetscLogGpuTimeBegin());
    for (PetscInt c = c0; c < c0 + n; c++) {
      PetscCall(VPDGPatchColor_CUDA(g, (PetscBool)(jac->precision == VP_PRECISION_SINGLE), jac->dglines, jac->dgref, d_dg, &pd, c, ra, NULL, wa));
      PetscCall(PetscLogGpuFlops(VPDGColorPatches(g, c) * VPDGFlopsPatch(g->dim, g->k, PETSC_FALSE)));
    }
    PetscCall(PetscLogGpuTimeEnd());
  } else {
    for (PetscInt c = c0; c < c0 + n; c++) {
      PetscCall(VPDGPatchColor_CPU(g, jac->dgp, c, ra, wa));
      PetscCall(PetscLogFlops(VPDGColorPatches(g, c) * VPDGFlopsPatch(g->dim, g->k, PETSC_FALSE)));
    }
  }
  PetscCall(VecRestoreArrayAndMemType(wl, &wa));
  PetscCall(VecRestoreArrayReadAndMemType(rl, &ra));
  if (!same) {
    PetscCall(VecSet(y, 0.0));
    PetscCall(DMLocalToGlobal(jac->dm, wl, ADD_VALUES, y));
    PetscCall(DMRestoreLocalVector(jac->dm, &rl));
    PetscCall(DMRestoreLocalVector(jac->dm, &wl));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discontinuous space, multiplicative: per color the residual by the SIPG operator, then the color's patches solved
   exactly (the global variant; GPU on one rank: the fused kernel, PCVPatchStepDGFused()); the iterates are those of one
   rank on any number of ranks */
static PetscErrorCode PCVPatchStepDG(PC_VPatch *jac, Vec b, Vec x, PetscBool fwd, PetscBool bwd)
{
  const PetscInt nc = 1 << ((DM_QBox *)jac->dm->data)->grid.dim;

  PetscFunctionBegin;
  for (PetscInt pass = 0; pass < 2; pass++) {
    if (!(pass ? bwd : fwd)) continue;
    if (jac->dgfused) {
      PetscCall(PCVPatchStepDGFused(jac, b, x, (PetscBool)pass));
      continue;
    }
    for (PetscInt i = 0; i < nc; i++) {
      PetscCall(MatMult(jac->Adg, x, jac->r));
      PetscCall(VecAYPX(jac->r, -1.0, b));
      PetscCall(PCVPatchDGColors(jac, jac->r, pass ? nc - 1 - i : i, 1, jac->w));
      PetscCall(VecAXPY(x, 1.0, jac->w));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discontinuous space, additive: y = damping * sum over all colors and their patches of R_v^T A_v^{-1} R_v r, divided
   by the operator's scale (no Dirichlet rows: Nitsche) */
static PetscErrorCode PCVPatchAdditiveDG(PC_VPatch *jac, Vec r, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCVPatchDGColors(jac, r, 0, 1 << ((DM_QBox *)jac->dm->data)->grid.dim, y));
  PetscCall(VecScale(y, jac->damping / jac->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* additive: y = damping * sum_v R_v^T A_v^{-1} R_v r (boundary rows: y = r), divided by the operator's scale */
static PetscErrorCode PCVPatchAdditive(PC_VPatch *jac, Vec r, Vec y)
{
  const VPGrid      *g = &((DM_QBox *)jac->dm->data)->grid;
  const PetscScalar *ra;
  PetscScalar       *da;

  PetscFunctionBegin;
  if (((DM_QBox *)jac->dm->data)->dg) {
    PetscCall(PCVPatchAdditiveDG(jac, r, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCVPatchGetLocal(jac, PETSC_FALSE, PETSC_TRUE));
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
  PetscCall(PCVPatchRestoreLocal(jac));
  PetscCall(VecScale(y, jac->damping));
  PetscCall(PCVPatchBoundary(jac, r, y));
  if (jac->scale != (PetscScalar)1.0) PetscCall(VecScale(y, 1.0 / jac->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one smoothing step in place from the current x. The sweeps solve with the Laplacian L: for the operator scale L they
   smooth L x = b / scale, which has the same iterates */
static PetscErrorCode PCVPatchStep(PC pc, Vec b, Vec x, PetscBool transpose, PetscBool zero)
{
  PC_VPatch    *jac = (PC_VPatch *)pc->data;
  PCVPatchSweep s   = jac->sweep;
  PetscBool     fwd, bwd, global = PETSC_FALSE;

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
  if (((DM_QBox *)jac->dm->data)->dg) {
    PetscCall(PCVPatchStepDG(jac, b, x, fwd, bwd));
    PetscCall(PetscLogEventEnd(VPATCH_PatchSmooth, pc, b, x, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (jac->kernel != PC_VPATCH_KERNEL_GLOBAL && !jac->surrogate) PetscCall(DMQBoxUseGlobalArrays_Private(jac->dm, b, &global));
  if (!global && !jac->surrogate && !(jac->cuda && jac->kernel == PC_VPATCH_KERNEL_GLOBAL))
    PetscCall(PCVPatchStepLocal(jac, b, x, fwd, bwd, zero));
  else {
    if (fwd) PetscCall(PCVPatchSweepColors(jac, b, x, PETSC_FALSE, global, zero));
    if (bwd) PetscCall(PCVPatchSweepColors(jac, b, x, PETSC_TRUE, global, (PetscBool)(zero && !fwd)));
  }
  PetscCall(PetscLogEventEnd(VPATCH_PatchSmooth, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_VPatch_Private(PC pc, Vec b, Vec y, PetscBool transpose)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;

  PetscFunctionBegin;
  if (jac->type == PC_VPATCH_ADDITIVE) {
    PetscCall(PetscLogEventBegin(VPATCH_PatchSmooth, pc, b, y, 0));
    PetscCall(PCVPatchAdditive(jac, b, y));
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
      PetscCall(PCVPatchAdditive(jac, w, jac->w));
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
  PetscCall(
      PetscOptionsEnum("-pc_vpatch_sweep", "Color order of one smoothing step (symmetric: CG-safe; forward: the PCMG smoother of share/vpatch-mg.options)", "PCVPatchSetSweep", PCVPatchSweeps, (PetscEnum)jac->sweep, (PetscEnum *)&jac->sweep, NULL));
  {
    PCVPatchType t = jac->type;
    PetscCall(PetscOptionsEnum("-pc_vpatch_type", "Multiplicative (colored) or additive", "PCVPatchSetType", PCVPatchTypes, (PetscEnum)t, (PetscEnum *)&t, &flg));
    if (flg) PetscCall(PCVPatchSetType(pc, t));
  }
  PetscCall(PetscOptionsReal("-pc_vpatch_damping", "Damping of the additive variant (default 1/2^d)", "PCVPatchSetDamping", w, &w, &flg));
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
    PetscInt  order[8], n = 8;
    PetscBool set;
    PetscCall(PetscOptionsIntArray("-pc_vpatch_colors", "Order of the 2^d colors in a forward pass (color c: the vertices whose coordinate d is odd where bit d of c is 1; default 0,1,...,2^d-1)", "PCVPatchSetColorOrder", order, &n, &set));
    if (set) PetscCall(PCVPatchSetColorOrder(pc, n, order));
  }
  PetscCall(PetscOptionsBool("-pc_vpatch_overlap", "Several ranks: solve the patches next to other ranks first, the others while their values travel", "PCVPATCH", jac->overlap, &jac->overlap, NULL));
  {
    PCVPatchRanks r = jac->ranks;
    PetscCall(PetscOptionsEnum("-pc_vpatch_ranks", "Several ranks: exact (one exchange per run of colors that agree along the cut directions; one rank's iterates) or relaxed (no exchange inside a sweep; not symmetric)", "PCVPatchSetRanks",
                               PCVPatchRanksTypes, (PetscEnum)r, (PetscEnum *)&r, &flg));
    if (flg) PetscCall(PCVPatchSetRanks(pc, r));
  }
  PetscCall(PetscOptionsEnum("-pc_vpatch_surrogate", "Mapped DMQBOX: scaling of the separable surrogate of each patch (default: pointmax, with local solver cg mean)", "PCVPATCH", PCVPatchSurrogates, (PetscEnum)jac->surtype,
                             (PetscEnum *)&jac->surtype, &flg));
  if (flg) {
    pc->setupcalled = PETSC_FALSE;
    jac->surtypeset = PETSC_TRUE;
  }
  PetscCall(PetscOptionsEnum("-pc_vpatch_local_solver", "Local solver: fast diagonalization, dense LU, or (mapped DMQBOX) CG steps on the patch's true operator", "PCVPatchSetLocalSolver", PCVPatchLocalSolvers, (PetscEnum)jac->local,
                             (PetscEnum *)&jac->local, &flg));
  if (flg) pc->setupcalled = PETSC_FALSE;
  PetscCall(PetscOptionsRangeInt("-pc_vpatch_local_its", "Local solver cg: CG steps per patch", "PCVPATCH", jac->localits, &jac->localits, &flg, 1, 100));
  if (flg) pc->setupcalled = PETSC_FALSE;
  PetscOptionsHeadEnd();
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
    if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_CG)
      PetscCall(PetscViewerASCIIPrintf(
          viewer, "mapped DMQBOX: %" PetscInt_FMT " CG steps per patch on its true operator, preconditioned by the separable surrogate (%s) scaled by the diagonal; nonlinear (use a flexible outer method); each color's residual by MatMult\n",
          jac->localits, PCVPatchSurrogates[jac->surtype]));
    else if (jac->surrogate && jac->local == PC_VPATCH_LOCAL_FDM)
      PetscCall(PetscViewerASCIIPrintf(viewer, "mapped DMQBOX: inexact local solves (fast diagonalization of a separable surrogate per patch, scaled by %s), each color's residual by MatMult\n", PCVPatchSurrogates[jac->surtype]));
    else if (jac->surrogate)
      PetscCall(PetscViewerASCIIPrintf(viewer, "mapped DMQBOX: exact local solves (each patch's dense LU), each color's residual by MatMult\n"));
    else if (jac->local == PC_VPATCH_LOCAL_CG)
      PetscCall(PetscViewerASCIIPrintf(viewer, "Cartesian DMQBOX: local solver cg is the exact fast diagonalization here\n"));
    if (jac->opw.mass != 0) PetscCall(PetscViewerASCIIPrintf(viewer, "operator: %g M + %g K (mass and stiffness; the patch solves are exact for both)\n", (double)(PetscRealPart(jac->scale) * jac->opw.mass), (double)(PetscRealPart(jac->scale) * jac->opw.stiff)));
    else if (jac->scale != (PetscScalar)1.0) PetscCall(PetscViewerASCIIPrintf(viewer, "operator: the DMQBOX operator scaled by %g\n", (double)PetscRealPart(jac->scale)));
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
  PetscFunctionBegin;
  ((PC_VPatch *)pc->data)->sweep = s;
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
  ((PC_VPatch *)pc->data)->local = l;
  pc->setupcalled                = PETSC_FALSE;
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
- l  - `PC_VPATCH_LOCAL_FDM` (fast diagonalization, default), `PC_VPATCH_LOCAL_DENSE` (stored LU, for verification) or
         `PC_VPATCH_LOCAL_CG` (mapped `DMQBOX`: CG steps on each patch's true operator, see `PCVPatchLocalSolver`)

  Options Database Keys:
+ -pc_vpatch_local_solver <fdm,dense,cg> - the local solver
- -pc_vpatch_local_its <n>               - local solver cg: CG steps per patch (default 2)

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
. -pc_vpatch_local_solver <fdm,dense,cg>        - fast diagonalization (default), a stored dense LU (verification), or on a mapped `DMQBOX` CG steps on each patch's true operator (CPU)
. -pc_vpatch_local_its <n>                      - local solver cg: CG steps per patch (default 2)
. -pc_vpatch_surrogate <pointmax,cellmax,mean>  - mapped `DMQBOX`: the scaling of the separable surrogate (`PCVPatchSurrogate`)
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
  pc->data      = jac;
  jac->sweep    = PC_VPATCH_SWEEP_SYMMETRIC; /* a symmetric preconditioner for CG; share/vpatch-mg.options sets forward for PCMG */
  jac->type     = PC_VPATCH_MULTIPLICATIVE;
  jac->damping  = 0.0; /* 1/2^d at set-up */
  jac->local    = PC_VPATCH_LOCAL_FDM;
  jac->localits = 2; /* 4, 4, 4, 5 its at contrast 1e6 against 7, 7, 6, 5 with one step (bench/RESULTS.md, session 12) */
  jac->kernel   = PC_VPATCH_KERNEL_FUSED;
  jac->overlap  = PETSC_TRUE;
  jac->ranks    = PC_VPATCH_RANKS_EXACT;
  jac->dglines  = PETSC_TRUE;
  jac->rcheck   = PETSC_TRUE;

  pc->ops->apply           = PCApply_VPatch;
  pc->ops->applytranspose  = PCApplyTranspose_VPatch;
  pc->ops->applyrichardson = PCApplyRichardson_VPatch;
  pc->ops->setup           = PCSetUp_VPatch;
  pc->ops->reset           = PCReset_VPatch;
  pc->ops->destroy         = PCDestroy_VPatch;
  pc->ops->setfromoptions  = PCSetFromOptions_VPatch;
  pc->ops->view            = PCView_VPatch;
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
