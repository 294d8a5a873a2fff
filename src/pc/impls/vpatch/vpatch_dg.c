/*
  PCVPATCH's DG variant (host glue; the kernels are cuda/vpatch_dg.cu and src/sys/dg1d.c): the discontinuous space of a
  DMQBOX (SIPG). A vertex patch is the 2^d cells around an interior vertex with all their DoFs, solved exactly by fast
  diagonalization of the 1D two-cell pencils; each color's residual from the SIPG operator (MatMult), or, on one rank
  on the GPU, inside the patch kernel (fused).
*/
#include <petscvpatch/private/pcvpatchimpl.h>

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

static PetscErrorCode PCVPatchSetUp_DG(PC pc)
{
  PC_VPatch *jac  = (PC_VPatch *)pc->data;
  DM         dm   = jac->dm;
  DM_QBox   *q    = (DM_QBox *)dm->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCheck(!jac->norder, comm, PETSC_ERR_SUP, "PCVPATCH -pc_vpatch_colors applies to the continuous space of DMQBOX; the DG vertex patches keep the colors 0, 1, ..., 2^d - 1");
  PetscCheck(jac->local == PC_VPATCH_LOCAL_FDM, comm, PETSC_ERR_SUP, "PCVPATCH on the discontinuous space of DMQBOX has the fdm local solver (exact) so far, not %s", PCVPatchLocalSolvers[jac->local]);
  PetscCheck(jac->cuda || jac->precision == VP_PRECISION_DOUBLE, comm, PETSC_ERR_SUP, "PCVPATCH -pc_vpatch_precision single runs on the GPU only: use -dm_vec_type cuda, or double precision");
  PetscCheck(!jac->cuda || jac->kernel != PC_VPATCH_KERNEL_SEPARATE, comm, PETSC_ERR_SUP,
             "PCVPATCH on the discontinuous space of DMQBOX has the GPU kernels fused (each patch computes its residual; one rank) and global (each color's residual by MatMult), not separate: use -pc_vpatch_kernel fused or global");
  PetscCheck(!jac->cuda || q->samelayout || !jac->kernelset || jac->kernel != PC_VPATCH_KERNEL_FUSED || jac->type == PC_VPATCH_ADDITIVE, comm, PETSC_ERR_SUP,
             "PCVPATCH on the discontinuous space of DMQBOX: -pc_vpatch_kernel fused computes each patch's residual from a ghost layer of two cells, which runs on one rank; on several ranks use -pc_vpatch_kernel global (the default there)");
  jac->dgfused = (PetscBool)(jac->cuda && q->samelayout && jac->kernel == PC_VPATCH_KERNEL_FUSED && jac->type == PC_VPATCH_MULTIPLICATIVE);
  for (PetscInt d = 0; d < q->dim; d++) {
    PetscCall(VPDGPatch1DSetUp(&q->dg1d[d], &jac->dgp[d]));
    if (jac->cuda) {
      const PetscInt P2 = 2 * (q->degree + 1);
      PetscCall(VPDeviceCopy_Private(jac->dgp[d].Q, (size_t)(q->cells[d] - 1) * P2 * P2, &jac->d_dgQ[d]));
      PetscCall(VPDeviceCopy_Private(jac->dgp[d].lam, (size_t)(q->cells[d] - 1) * P2, &jac->d_dglam[d]));
    }
  }
  if (jac->cuda && q->dim == 3 && q->degree <= VPATCH_MAX_DEGREE_3D) PetscCall(PCVPatchDGReference(q, &jac->dgref));
  PetscCall(MatCreateQBoxSIPG_Private(dm, &jac->Adg));
  PetscCall(DMCreateGlobalVector(dm, &jac->r));
  PetscCall(VecDuplicate(jac->r, &jac->w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step (x = 0 on entry or not: the same work) */
static PetscErrorCode PCVPatchStep_DG(PC_VPatch *jac, Vec b, Vec x, PetscBool fwd, PetscBool bwd, PetscBool zero)
{
  PetscFunctionBegin;
  (void)zero;
  PetscCall(PCVPatchStepDG(jac, b, x, fwd, bwd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discontinuous space (SIPG): exact local solves of the DG vertex patches */
const PCVPatchVariant PCVPatchVariantDG = {"DG", PETSC_FALSE, PETSC_FALSE, PCVPatchSetUp_DG, PCVPatchStep_DG, PCVPatchAdditiveDG};
