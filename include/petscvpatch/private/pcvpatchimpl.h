/* Private declarations of PCVPATCH (src/pc/impls/vpatch/): its context, its variants and the helpers they share.

   PCVPATCH chooses a variant once at set-up from its operator's DMQBOX (PCSetUp_VPatch(), vpatch.c): Cartesian
   (vpatch_cartesian.c: exact local solves by fast diagonalization of mass M + stiffness K, the fused patch kernels),
   mapped (vpatch_mapped.c: a mapped box or a coefficient; inexact local solves of a separable surrogate, residuals by
   MatMult) or DG (vpatch_dg.c: the discontinuous space's vertex patches). A variant is a table of functions, as PETSc's
   PCPATCH keeps its setupsolver/applysolver pointers; vpatch.c holds what is common (options, view, the operator's
   description, PCApply and PCApplyRichardson). */
#pragma once

#include <petscvpatch/private/qboximpl.h>
#include <petsc/private/pcimpl.h>

typedef struct _PC_VPatch PC_VPatch;

/* one variant of PCVPATCH */
typedef struct {
  const char *name;
  PetscBool   mass;                                                                                /* it honours a mass term (else refused at set-up) */
  PetscBool   weights;                                                                             /* its kernels take the operator's weights (mass M + stiffness K); else K alone, the
                                                                                   sweep smoothing with b over K's weight */
  PetscErrorCode (*setup)(PC);                                                                     /* after the common set-up (PCSetUp_VPatch()) */
  PetscErrorCode (*step)(PC_VPatch *, Vec b, Vec x, PetscBool fwd, PetscBool bwd, PetscBool zero); /* one multiplicative step in place (zero: x = 0 on entry) */
  PetscErrorCode (*additive)(PC_VPatch *, Vec r, Vec y);                                           /* the additive type: y = B r */
} PCVPatchVariant;

PETSC_INTERN const PCVPatchVariant PCVPatchVariantCartesian, PCVPatchVariantMapped, PCVPatchVariantDG;

struct _PC_VPatch {
  const PCVPatchVariant *variant;    /* chosen at set-up: Cartesian, mapped or DG */
  PCVPatchSweep          sweep;      /* color order of one smoothing step */
  PCVPatchType           type;       /* multiplicative (colored) or additive */
  PetscReal              damping;    /* additive: the correction is scaled by this (0: not set, 1/2^d) */
  PetscBool              kernelset;  /* -pc_vpatch_kernel or -pc_vpatch_patches_per_block given (GPU only: noted when the CPU path runs) */
  PetscScalar            scale;      /* the preconditioning matrix is scale * (opw.mass M + opw.stiff K) */
  VPWeights              opw;        /* what the patch solves invert: the Cartesian continuous space's kernels take the operator's own weights
                                     (scale 1); the other variants the operator K over its weight (scale: the weight, opw = {0, 1}) */
  PetscReal              dscale;     /* the Dirichlet rows of opw.mass M + opw.stiff K: (opw.mass + opw.stiff) I */
  Vec                    bs;         /* b / scale, when scale != 1 */
  PetscScalar           *work;       /* CPU path: one patch's work arrays (VPPatchWorkSize()) */
  Vec                    r;          /* Richardson: the residual, where the caller gives no work vector */
  PetscBool              rcheck;     /* Richardson with its > 1: the true residual after each sweep (-pc_vpatch_richardson_check) */
  PetscBool              rinfo;      /* PetscInfo() has said once that the check runs */
  PCVPatchCorrection     correction; /* Richardson from a nonzero iterate: in place, or the sweeps on the correction of b - A x */
  Vec                    dcorr;      /* that correction */
  PetscInt               order[8];   /* the colors of a forward pass in turn (-pc_vpatch_colors; backward: reversed) */
  PetscInt               norder;     /* entries set in order (0: the colors 0, 1, ..., 2^d - 1) */
  PCVPatchLocalSolver    local;      /* fast diagonalization, stored dense LU, or (mapped) CG steps on the true patch operator */
  DM                     dm;         /* the DMQBOX of the operator (referenced) */
  VPPatchOp              op;         /* 1D patch matrices, eigenvectors and eigenvalues */
  PetscScalar           *LU;         /* dense LU of the patch matrix (local solver dense) */
  int                   *piv;        /* its pivots */
  Vec                    bl;         /* ghosted right-hand side, from the DM's pool during an apply (PCVPatchGetLocal()) */
  Vec                    xl;         /* ghosted iterate, likewise */
  Vec                    dl;         /* ghosted correction of one color (additive, kernel global), likewise */
  Vec                    w;          /* global work vector (additive Richardson) */
  PCVPatchKernel         kernel;     /* GPU kernel variant */
  PetscInt               ppb;        /* GPU: patches per thread block (0: the default for the degree) */
  VPPrecision            precision;  /* GPU arithmetic of the patch kernels */
  Mat                    A;          /* the level operator (the PC's Pmat, not referenced): residuals of kernel global */
  PetscBool              cuda;       /* the DM's vectors live on the GPU: the CUDA kernels run */
  PetscReal             *scratch;    /* device buffer of the patch residuals of one color (kernel separate) */
  PetscBool              overlap;    /* several ranks: the exchange of a color travels while the inner patches are solved */
  PCVPatchRanks          ranks;      /* several ranks: exact (one exchange per group of colors, one rank's iterates) or relaxed (none inside the sweep) */
  VPDGPatch1D            dgp[3];     /* discontinuous DMQBOX: the 2-cell pencils of the DG vertex patches per direction */
  Mat                    Adg;        /* discontinuous DMQBOX: the SIPG operator of the DM (each color's residual) */
  PetscReal             *d_dgQ[3];   /* discontinuous DMQBOX, GPU: the device copies of dgp's eigenvectors and eigenvalues */
  PetscReal             *d_dglam[3];
  PetscBool              dgfused;    /* discontinuous DMQBOX, GPU, one rank: each color's residual computed in the patch kernel */
  PetscBool              dglines;    /* discontinuous DMQBOX, GPU, 3D: one thread per 1D line of a patch (else one per unknown) */
  PetscReal             *dgref;      /* discontinuous DMQBOX, GPU, 3D: the interior patches' 1D data at h = 1 (VPDGPatchColor_CUDA()) */
  PetscBool              surrogate;  /* a mapped DMQBOX (or one with a coefficient): inexact local solves of a separable surrogate, residuals by MatMult */
  PCVPatchSurrogate      surtype;    /* how the surrogate is scaled (-pc_vpatch_surrogate) */
  PetscBool              surtypeset; /* -pc_vpatch_surrogate given (else the local solver cg takes mean) */
  PetscInt               localits;   /* local solver cg: CG steps per patch solve */
  PetscBool              patchres;   /* mapped DMQBOX, CUDA, 3D: each color's residual patch by patch (-pc_vpatch_patch_residual) */
  PetscBool              patchran;   /* it ran (for -ksp_view) */
  PetscReal              localdamp;  /* local solver scaled: the damping of each patch's correction (PETSC_DETERMINE: by the degree) */
  PetscReal              damp;       /* local solver scaled: the damping in use (set up) */
  PetscInt               dampsteps;  /* local solver scaled, 3D: Lanczos steps per patch for its own damping (-pc_vpatch_local_damping_steps; 0: damp for all; PETSC_DETERMINE: PCVPatchDampSteps()) */
  PetscReal             *pw;         /* the damping of each patch, per vertex as pg (CPU; NULL: damp for all) */
  PetscReal             *d_pw;       /* the same on the device (GPU) */
  PetscBool              localset;   /* the local solver was chosen (else a DMQBOX with a coefficient takes scaled) */
  PetscReal             *pgeo;       /* local solver cg with a layer of cells below this rank's: the factors of both (VPPatchLocal); else the DM's own are read */
  PetscScalar           *pdiag;      /* local solver cg, CPU: the operator's diagonal, ghosted local */
  Vec                    diagl;      /* local solver cg, GPU: the same in a ghosted CUDA vector */
  PetscReal             *d_pgeo;     /* local solver cg, GPU, with a layer of cells below this rank's: pgeo on the device */
  VPPatchCGTables        cgt;        /* local solver cg, GPU: the kernel's tables */
  VPPatchScaledTables    sct;        /* local solver scaled, GPU: the tables of the solve fused with the patch residual (MatQBoxPatchResidual_Private()) */
  PetscReal             *pg;         /* surrogate: per vertex of this rank (VPPatchVertexBox()) the factors g_0, g_1, g_2 of its patch */
  PetscReal             *d_pg;       /* their device copy */
  PetscReal             *prof;       /* surrogate profile: per vertex (as pg) its patch's tables (vpprofile.h), CPU path */
  PetscReal             *d_prof;     /* the same, GPU path (computed there) */
  PetscReal             *pm;         /* surrogate with a mass term: per vertex the mass weight times the mean of its cells' volumes */
  PetscReal             *d_pm;       /* its device copy */
  PetscScalar           *pLU;        /* local solver dense on a mapped DMQBOX: per vertex its patch's LU ((2k-1)^d square) */
  int                   *ppiv;       /* its pivots */
  VPPatchLocal           plocal;     /* what the CPU kernel reads: pg, or pLU and ppiv */
};

/* shared by the variants (vpatch.c) */
PETSC_INTERN PetscErrorCode PCVPatchGetLocal_Private(PC_VPatch *, PetscBool, PetscBool);
PETSC_INTERN PetscErrorCode PCVPatchRestoreLocal_Private(PC_VPatch *);
PETSC_INTERN PetscErrorCode PCVPatchBoundary_Private(PC_VPatch *, Vec, Vec);
PETSC_INTERN PetscLogDouble PCVPatchFlopsGPU_Private(PC_VPatch *, const VPGrid *, PetscBool);
/* the continuous space's (vpatch_cartesian.c; the mapped variant uses them too) */
PETSC_INTERN PetscErrorCode PCVPatchSetUpDirection_Private(VPPatchOp *, const VPBasis1D *, const VPWeights *, PetscInt, PetscReal);
PETSC_INTERN PetscErrorCode PCVPatchSetUpContinuous_Private(PC);
PETSC_INTERN PetscErrorCode PCVPatchSweepColors_Private(PC_VPatch *, Vec, Vec, PetscBool, PetscBool, PetscBool);
PETSC_INTERN PetscErrorCode PCVPatchAdditiveContinuous_Private(PC_VPatch *, Vec, Vec);

/* the color at position i of a pass: the order of -pc_vpatch_colors (default 0, 1, ..., nc - 1), reversed backward */
static inline PetscInt PCVPatchColor(const PC_VPatch *jac, PetscInt nc, PetscInt i, PetscBool reverse)
{
  const PetscInt j = reverse ? nc - 1 - i : i;
  return jac->norder ? jac->order[j] : j;
}

/* the Lanczos steps of each patch's damping: the user's, else 3 for a forward or backward sweep (a smoother: a patch
   whose estimate is low is only damped too little) and 5 for a symmetric one, which CG needs positive definite (w_v
   lambda_v < 2 on every patch): 3 steps estimated some patches' lambda_v more than 2/1.7 times too low (CG stopped with
   DIVERGED_INDEFINITE_PC on Q_4, 10^3 cells of the shell at contrast 1e4 and 1e6, and on the 25^3-cell coarse level of
   a Q_3 hierarchy), 5 in none of the cases measured */
static inline PetscInt PCVPatchDampSteps(const PC_VPatch *jac)
{
  return jac->dampsteps != PETSC_DETERMINE ? jac->dampsteps : (jac->sweep == PC_VPATCH_SWEEP_SYMMETRIC ? 5 : 3);
}
