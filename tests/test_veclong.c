static char help[] = "The 64-bit vector operations of DMQBOX's CUDA vectors (src/sys/cuda/veclong.cu, qboxveccuda.c), which replace the ones\n\
PETSc's CUDA vectors pass to cuBLAS with a 32-bit length.\n\
Default: with -dm_qbox_vec_long on every vector, each operation (VecAXPY, VecAYPX, VecAXPBY, VecAXPBYPCZ, VecWAXPY,\n\
VecMAXPY, VecScale, VecSwap, VecDot, VecTDot, VecMDot, VecMTDot, VecNorm 1/2/inf/1_and_2, VecNormBegin/End,\n\
VecDotBegin/End, VecMDotBegin/End) against PETSc's own on a plain CUDA vector of the same layout and values: every\n\
entry within 4 units of rounding of the terms' magnitude, swaps and max norms exact, reductions to 1e-12; where a\n\
coefficient is 0 a NaN in the unread vector does not survive, as in PETSc. Without the option none is installed.\n\
-big: a DMQBOX of Q_1 on 1290^3 cells, 2,151,685,171 values on one rank (more than 2^31 - 1; 17.2 GB per vector,\n\
4 vectors): the operations are installed without the option, and each is compared with PETSc's on the two halves of\n\
the vectors (each below 2^31, which cuBLAS takes). Needs a GPU (-big: 70 GB of device memory).\n\n";

#include <petscvpatch.h>
#include <petsc/private/vecimpl.h>

/* the largest |a_i - b_i| / (|ca x_i| + |cb y_i| + |cc z_i|) over the entries (y, z may be NULL), over the ranks; NaN
   in a or b gives infinity */
static PetscErrorCode CombineErr(Vec a, Vec b, PetscScalar ca, Vec x, PetscScalar cb, Vec y, PetscScalar cc, Vec z, PetscReal *err)
{
  const PetscScalar *av, *bv, *xv, *yv = NULL, *zv = NULL;
  PetscInt           n;

  PetscFunctionBeginUser;
  *err = 0;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &av));
  PetscCall(VecGetArrayRead(b, &bv));
  PetscCall(VecGetArrayRead(x, &xv));
  if (y) PetscCall(VecGetArrayRead(y, &yv));
  if (z) PetscCall(VecGetArrayRead(z, &zv));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal m = PetscAbsScalar(ca * xv[i]) + (y ? PetscAbsScalar(cb * yv[i]) : 0) + (z ? PetscAbsScalar(cc * zv[i]) : 0);
    PetscReal       e;
    if (PetscIsInfOrNanScalar(av[i]) || PetscIsInfOrNanScalar(bv[i]))
      e = PETSC_INFINITY;
    else
      e = PetscAbsScalar(av[i] - bv[i]) / (m + PETSC_MIN_REAL);
    *err = PetscMax(*err, e);
  }
  if (z) PetscCall(VecRestoreArrayRead(z, &zv));
  if (y) PetscCall(VecRestoreArrayRead(y, &yv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(VecRestoreArrayRead(b, &bv));
  PetscCall(VecRestoreArrayRead(a, &av));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, err, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define CHECK_ERR(err, what, ...) PetscCheck((err) <= 4 * PETSC_MACHINE_EPSILON, PETSC_COMM_WORLD, PETSC_ERR_PLIB, what " differs from PETSc's by %g units of rounding", __VA_ARGS__, (double)((err) / PETSC_MACHINE_EPSILON))

/* the small case: the DM's vectors (x, y, z, ws) against plain CUDA vectors (px, py, pz, pws) with the same values */
static PetscErrorCode CheckSmall(PetscInt dim, const PetscInt cells[], PetscInt k, PetscBool want)
{
  DM          dm;
  Vec         x, y, z, px, py, pz, y0, z0, ws[11], pws[11];
  PetscRandom rnd;
  PetscInt    N;
  PetscReal   err;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &y0));
  PetscCall(VecDuplicate(x, &z0));
  for (PetscInt j = 0; j < 11; j++) PetscCall(VecDuplicate(x, &ws[j]));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &px));
  PetscCall(VecSetLayout(px, x->map));
  PetscCall(VecSetType(px, VECCUDA));
  PetscCall(VecDuplicate(px, &py));
  PetscCall(VecDuplicate(px, &pz));
  for (PetscInt j = 0; j < 11; j++) PetscCall(VecDuplicate(px, &pws[j]));
  PetscCheck((x->ops->axpy != px->ops->axpy) == want && (ws[10]->ops->norm != pws[10]->ops->norm) == want && (x->ops->maxpy != px->ops->maxpy) == want, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "N = %" PetscInt_FMT ": the 64-bit operations are %sinstalled on the DM's vectors", N, want ? "not " : "");
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(y0, rnd));
  PetscCall(VecSetRandom(z0, rnd));
  for (PetscInt j = 0; j < 11; j++) {
    PetscCall(VecSetRandom(ws[j], rnd));
    PetscCall(VecCopy(ws[j], pws[j]));
  }
  PetscCall(VecCopy(x, px));

  { /* VecAXPY, VecAYPX, VecAXPBY, VecAXPBYPCZ, VecWAXPY; a NaN in an output whose old values a zero coefficient drops */
    const PetscScalar c[][3] = {{2.5, 0, 1}, {0, 0, 1}, {1, 0, -1}, {1, 0, 0}, {1, 0, 1}, {-1.5, 0, 0.5}, {2, 0, 0}, {0, 0, 3}, {1.5, -0.5, 0}, {1, 2, 1}, {-1, 0.5, 3}, {2, 1, 0}};
    for (size_t t = 0; t < sizeof(c) / sizeof(c[0]); t++) {
      const char *op = t < 2 ? "VecAXPY" : t < 6 ? "VecAYPX" : t < 9 ? "VecAXPBY" : t < 11 ? "VecAXPBYPCZ" : "VecWAXPY";
      PetscCall(VecCopy(y0, y));
      PetscCall(VecCopy(y0, py));
      PetscCall(VecCopy(z0, z));
      PetscCall(VecCopy(z0, pz));
      if (c[t][2] == 0) { /* the old values are not read */
        PetscCall(VecSet(y, (PetscScalar)NAN));
        PetscCall(VecSet(py, (PetscScalar)NAN));
      }
      if (t < 2) {
        PetscCall(VecAXPY(y, c[t][0], x));
        PetscCall(VecAXPY(py, c[t][0], px));
        PetscCall(CombineErr(y, py, c[t][0], x, 1, y0, 0, NULL, &err));
      } else if (t < 6) {
        PetscCall(VecAYPX(y, c[t][2], x));
        PetscCall(VecAYPX(py, c[t][2], px));
        PetscCall(CombineErr(y, py, 1, x, c[t][2], y0, 0, NULL, &err));
      } else if (t < 9) {
        PetscCall(VecAXPBY(y, c[t][0], c[t][2], x));
        PetscCall(VecAXPBY(py, c[t][0], c[t][2], px));
        PetscCall(CombineErr(y, py, c[t][0], x, c[t][2], y0, 0, NULL, &err));
      } else if (t < 11) {
        PetscCall(VecAXPBYPCZ(y, c[t][0], c[t][1], c[t][2], x, z));
        PetscCall(VecAXPBYPCZ(py, c[t][0], c[t][1], c[t][2], px, pz));
        PetscCall(CombineErr(y, py, c[t][0], x, c[t][1], z0, c[t][2], y0, &err));
      } else {
        PetscCall(VecWAXPY(y, c[t][0], x, z));
        PetscCall(VecWAXPY(py, c[t][0], px, pz));
        PetscCall(CombineErr(y, py, c[t][0], x, 1, z0, 0, NULL, &err));
      }
      CHECK_ERR(err, "N = %" PetscInt_FMT ": %s with (%g, %g, %g)", N, op, (double)PetscRealPart(c[t][0]), (double)PetscRealPart(c[t][1]), (double)PetscRealPart(c[t][2]));
    }
  }
  { /* VecMAXPY */
    const PetscInt    nvs[] = {1, 3, 8, 11};
    const PetscScalar a[11] = {0.5, -1, 2, 0.25, -0.75, 1.5, 3, -2, 0.125, 1, -0.5};
    for (size_t t = 0; t < sizeof(nvs) / sizeof(nvs[0]); t++) {
      const PetscScalar *yv, *pv, *wv[11];
      PetscReal          e = 0;
      PetscInt           n;
      PetscCall(VecCopy(y0, y));
      PetscCall(VecCopy(y0, py));
      PetscCall(VecMAXPY(y, nvs[t], a, ws));
      PetscCall(VecMAXPY(py, nvs[t], a, pws));
      PetscCall(VecGetLocalSize(y, &n));
      PetscCall(VecGetArrayRead(y, &yv));
      PetscCall(VecGetArrayRead(py, &pv));
      for (PetscInt j = 0; j < nvs[t]; j++) PetscCall(VecGetArrayRead(ws[j], &wv[j]));
      {
        const PetscScalar *y0v;
        PetscCall(VecGetArrayRead(y0, &y0v));
        for (PetscInt i = 0; i < n; i++) {
          PetscReal m = PetscAbsScalar(y0v[i]);
          for (PetscInt j = 0; j < nvs[t]; j++) m += PetscAbsScalar(a[j] * wv[j][i]);
          e = PetscMax(e, PetscAbsScalar(yv[i] - pv[i]) / (m * (nvs[t] + 1) / 4 + PETSC_MIN_REAL));
        }
        PetscCall(VecRestoreArrayRead(y0, &y0v));
      }
      for (PetscInt j = 0; j < nvs[t]; j++) PetscCall(VecRestoreArrayRead(ws[j], &wv[j]));
      PetscCall(VecRestoreArrayRead(py, &pv));
      PetscCall(VecRestoreArrayRead(y, &yv));
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
      CHECK_ERR(e, "N = %" PetscInt_FMT ": VecMAXPY of %" PetscInt_FMT " vectors", N, nvs[t]);
    }
  }
  { /* VecScale (0: a NaN becomes 0), VecSwap (exact) */
    const PetscScalar s[] = {0, 1, -2.5};
    for (size_t t = 0; t < 3; t++) {
      PetscCall(VecCopy(y0, y));
      PetscCall(VecCopy(y0, py));
      if (s[t] == 0) {
        PetscCall(VecSet(y, (PetscScalar)NAN));
        PetscCall(VecSet(py, (PetscScalar)NAN));
      }
      PetscCall(VecScale(y, s[t]));
      PetscCall(VecScale(py, s[t]));
      PetscCall(CombineErr(y, py, s[t], y0, 0, NULL, 0, NULL, &err));
      CHECK_ERR(err, "N = %" PetscInt_FMT ": VecScale by %g", N, (double)PetscRealPart(s[t]));
    }
    PetscCall(VecCopy(y0, y));
    PetscCall(VecCopy(z0, z));
    PetscCall(VecSwap(y, z));
    {
      PetscBool ey, ez;
      PetscCall(VecEqual(y, z0, &ey));
      PetscCall(VecEqual(z, y0, &ez));
      PetscCheck(ey && ez, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecSwap did not exchange the values", N);
    }
  }
  { /* reductions */
    const NormType types[] = {NORM_1, NORM_2, NORM_INFINITY, NORM_1_AND_2};
    PetscScalar    d, pd, md[11], pmd;
    PetscReal      nx, ny, r[2], pr[2];

    PetscCall(VecCopy(y0, y));
    PetscCall(VecCopy(y0, py));
    PetscCall(VecNorm(px, NORM_2, &nx));
    PetscCall(VecNorm(py, NORM_2, &ny));
    PetscCall(VecDot(x, y, &d));
    PetscCall(VecDot(px, py, &pd));
    PetscCheck(PetscAbsScalar(d - pd) <= 1e-12 * nx * ny, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecDot %.17g, PETSc's %.17g", N, (double)PetscRealPart(d), (double)PetscRealPart(pd));
    PetscCall(VecTDot(x, y, &d));
    PetscCheck(PetscAbsScalar(d - pd) <= 1e-12 * nx * ny, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecTDot %.17g, PETSc's VecDot %.17g", N, (double)PetscRealPart(d), (double)PetscRealPart(pd));
    PetscCall(VecDotBegin(x, y, &d));
    PetscCall(VecNormBegin(x, NORM_2, &r[0]));
    PetscCall(VecDotEnd(x, y, &d));
    PetscCall(VecNormEnd(x, NORM_2, &r[0]));
    PetscCheck(PetscAbsScalar(d - pd) <= 1e-12 * nx * ny && PetscAbsReal(r[0] - nx) <= 1e-12 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecDotBegin/End %.17g or VecNormBegin/End %.17g differ from PETSc's %.17g, %.17g", N,
               (double)PetscRealPart(d), (double)r[0], (double)PetscRealPart(pd), (double)nx);
    for (PetscInt nv = 1; nv <= 11; nv++)
      for (int t = 0; t < 2; t++) { /* VecMDot, VecMTDot */
        if (t)
          PetscCall(VecMTDot(x, nv, ws, md));
        else
          PetscCall(VecMDot(x, nv, ws, md));
        for (PetscInt j = 0; j < nv; j++) {
          PetscReal nw;
          PetscCall(VecDot(px, pws[j], &pmd));
          PetscCall(VecNorm(pws[j], NORM_2, &nw));
          PetscCheck(PetscAbsScalar(md[j] - pmd) <= 1e-12 * nx * nw, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": %s of %" PetscInt_FMT " vectors, entry %" PetscInt_FMT ": %.17g, PETSc's VecDot %.17g", N, t ? "VecMTDot" : "VecMDot", nv,
                     j, (double)PetscRealPart(md[j]), (double)PetscRealPart(pmd));
        }
      }
    PetscCall(VecMDotBegin(x, 3, ws, md));
    PetscCall(VecMDotEnd(x, 3, ws, md));
    for (PetscInt j = 0; j < 3; j++) {
      PetscReal nw;
      PetscCall(VecDot(px, pws[j], &pmd));
      PetscCall(VecNorm(pws[j], NORM_2, &nw));
      PetscCheck(PetscAbsScalar(md[j] - pmd) <= 1e-12 * nx * nw, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecMDotBegin/End entry %" PetscInt_FMT ": %.17g, PETSc's VecDot %.17g", N, j, (double)PetscRealPart(md[j]),
                 (double)PetscRealPart(pmd));
    }
    for (size_t t = 0; t < 4; t++) {
      PetscCall(VecCopy(y0, y)); /* a new state: no cached norm */
      PetscCall(VecNorm(y, types[t], r));
      PetscCall(VecNorm(py, types[t], pr));
      for (int j = 0; j < (types[t] == NORM_1_AND_2 ? 2 : 1); j++)
        PetscCheck(types[t] == NORM_INFINITY ? r[j] == pr[j] : PetscAbsReal(r[j] - pr[j]) <= 1e-12 * pr[j], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecNorm of type %s (part %d) %.17g, PETSc's %.17g", N, NormTypes[types[t]], j,
                   (double)r[j], (double)pr[j]);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ", %" PetscInt_FMT " entries: every operation %s\n", dim, k, N, want ? "equals PETSc's" : "is PETSc's"));
  PetscCall(PetscRandomDestroy(&rnd));
  for (PetscInt j = 0; j < 11; j++) {
    PetscCall(VecDestroy(&ws[j]));
    PetscCall(VecDestroy(&pws[j]));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&z0));
  PetscCall(VecDestroy(&px));
  PetscCall(VecDestroy(&py));
  PetscCall(VecDestroy(&pz));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* h[0], h[1]: PETSc's plain CUDA vectors over the two halves of v's device array (made anew for each use: PETSc caches
   norms by a vector's state, which changes to v do not touch) */
static PetscErrorCode Halves(Vec v, Vec h[2])
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecCUDAGetArray(v, &a));
  PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, 1, n / 2, a, &h[0]));
  PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, 1, n - n / 2, a + n / 2, &h[1]));
  PetscCall(VecCUDARestoreArray(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DestroyHalves(Vec h[2])
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&h[0]));
  PetscCall(VecDestroy(&h[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z (by the DM's operation) against w (the same operation by PETSc on the halves): max |z - w| <= 8 eps max(|w|, 1);
   then w = z for the next operation. The values here are O(1). */
static PetscErrorCode CompareBig(Vec z, Vec w, const char *what)
{
  Vec       hz[2], hw[2];
  PetscReal d[2], m[2];

  PetscFunctionBeginUser;
  PetscCall(Halves(z, hz));
  PetscCall(Halves(w, hw));
  for (int i = 0; i < 2; i++) {
    PetscCall(VecNorm(hw[i], NORM_INFINITY, &m[i]));
    PetscCall(VecAXPY(hw[i], -1, hz[i]));
    PetscCall(VecNorm(hw[i], NORM_INFINITY, &d[i]));
  }
  PetscCall(DestroyHalves(hz));
  PetscCall(DestroyHalves(hw));
  PetscCheck(PetscMax(d[0], d[1]) <= 8 * PETSC_MACHINE_EPSILON * PetscMax(1, PetscMax(m[0], m[1])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the DM's vector differs from PETSc's on the halves by %g (largest entry %g)", what,
             (double)PetscMax(d[0], d[1]), (double)PetscMax(m[0], m[1]));
  PetscCall(VecCopy(z, w));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: equal to PETSc's on the halves (difference %g)\n", what, (double)PetscMax(d[0], d[1])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the big case: one rank, more than 2^31 - 1 values per vector */
static PetscErrorCode CheckBig(void)
{
  const PetscInt cells[3] = {1290, 1290, 1290};
  DM             dm;
  Vec            x, y, z, w, hx[2], hy[2], hz[2], hw[2], xy[2];
  PetscInt       n;
  PetscScalar    d, hd[2], md[2];
  PetscReal      r[2], hr[2][2], nx, ny;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_SELF, 3, cells, 1, NULL, NULL, &dm));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCheck(n > PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the big case has %" PetscInt_FMT " values, not more than 2^31 - 1", n);
  {
    Vec plain;
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, 2, &plain));
    PetscCheck(x->ops->axpy != plain->ops->axpy && x->ops->norm != plain->ops->norm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the 64-bit operations are not installed on a vector of %" PetscInt_FMT " values", n);
    PetscCall(VecDestroy(&plain));
  }
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &w));
  { /* x_i, y_i in [-0.5, 0.5), patterns of periods 1009 and 1013 (primes: entries past 2^31 differ from those before) */
    PetscScalar *xa, *ya;
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    for (PetscInt i = 0; i < n; i++) {
      xa[i] = (PetscScalar)(i % 1009) / 1009 - 0.5;
      ya[i] = (PetscScalar)((7 * i) % 1013) / 1013 - 0.5 + (i >= PETSC_INT32_MAX ? 0.25 : 0);
    }
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayWrite(x, &xa));
  }
  /* reductions: the DM's against the halves' */
  PetscCall(Halves(x, hx));
  PetscCall(Halves(y, hy));
  PetscCall(VecDot(x, y, &d));
  PetscCall(VecMDot(x, 2, (xy[0] = y, xy[1] = x, xy), md));
  for (int i = 0; i < 2; i++) {
    PetscCall(VecDot(hx[i], hy[i], &hd[i]));
    PetscCall(VecNorm(hy[i], NORM_1_AND_2, hr[i]));
  }
  PetscCall(VecNorm(x, NORM_2, &nx));
  PetscCall(VecNorm(y, NORM_1_AND_2, r));
  ny = r[1];
  PetscCheck(PetscAbsScalar(d - (hd[0] + hd[1])) <= 1e-12 * nx * ny && PetscAbsScalar(md[0] - d) <= 1e-12 * nx * ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecDot %.17g, VecMDot %.17g, PETSc's on the halves %.17g", (double)PetscRealPart(d),
             (double)PetscRealPart(md[0]), (double)PetscRealPart(hd[0] + hd[1]));
  PetscCheck(PetscAbsReal(r[0] - (hr[0][0] + hr[1][0])) <= 1e-12 * r[0] && PetscAbsReal(r[1] - PetscSqrtReal(hr[0][1] * hr[0][1] + hr[1][1] * hr[1][1])) <= 1e-12 * r[1], PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "VecNorm 1 and 2 %.17g %.17g, PETSc's on the halves %.17g %.17g", (double)r[0], (double)r[1], (double)(hr[0][0] + hr[1][0]), (double)PetscSqrtReal(hr[0][1] * hr[0][1] + hr[1][1] * hr[1][1]));
  PetscCheck(PetscAbsScalar(md[1] - nx * nx) <= 1e-12 * nx * nx, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecMDot x^T x %.17g, VecNorm^2 %.17g", (double)PetscRealPart(md[1]), (double)(nx * nx));
  PetscCall(VecNorm(y, NORM_INFINITY, &r[0]));
  PetscCall(VecNorm(hy[0], NORM_INFINITY, &hr[0][0]));
  PetscCall(VecNorm(hy[1], NORM_INFINITY, &hr[1][0]));
  PetscCheck(r[0] == PetscMax(hr[0][0], hr[1][0]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecNorm inf %.17g, PETSc's on the halves %.17g", (double)r[0], (double)PetscMax(hr[0][0], hr[1][0]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " values: VecDot, VecMDot, VecNorm (1, 2, inf) equal to PETSc's on the halves\n", n));
  PetscCall(DestroyHalves(hx));
  PetscCall(DestroyHalves(hy));

  /* operations that write: z by the DM's, w by PETSc's on the halves */
  PetscCall(VecCopy(y, z));
  PetscCall(VecCopy(y, w));
  PetscCall(VecAXPY(z, 2, x));
  PetscCall(Halves(x, hx));
  PetscCall(Halves(y, hy));
#define ON_HALVES(stmt)                          \
  do {                                           \
    PetscCall(Halves(w, hw));                    \
    for (int i = 0; i < 2; i++) PetscCall(stmt); \
    PetscCall(DestroyHalves(hw));                \
  } while (0)
  ON_HALVES(VecAXPY(hw[i], 2, hx[i]));
  PetscCall(CompareBig(z, w, "VecAXPY"));
  PetscCall(VecAYPX(z, -0.5, x));
  ON_HALVES(VecAYPX(hw[i], -0.5, hx[i]));
  PetscCall(CompareBig(z, w, "VecAYPX"));
  PetscCall(VecAXPBY(z, 1.5, 0.75, y));
  ON_HALVES(VecAXPBY(hw[i], 1.5, 0.75, hy[i]));
  PetscCall(CompareBig(z, w, "VecAXPBY"));
  PetscCall(VecAXPBYPCZ(z, -1, 0.5, 0.25, x, y));
  ON_HALVES(VecAXPBYPCZ(hw[i], -1, 0.5, 0.25, hx[i], hy[i]));
  PetscCall(CompareBig(z, w, "VecAXPBYPCZ"));
  PetscCall(VecWAXPY(z, 3, x, y));
  ON_HALVES(VecWAXPY(hw[i], 3, hx[i], hy[i]));
  PetscCall(CompareBig(z, w, "VecWAXPY"));
  {
    const PetscScalar a[2] = {0.5, -1.25};
    Vec               v[2] = {x, y};
    PetscCall(VecMAXPY(z, 2, a, v));
    ON_HALVES(VecMAXPY(hw[i], 2, a, (Vec[]){hx[i], hy[i]}));
    PetscCall(CompareBig(z, w, "VecMAXPY"));
  }
  PetscCall(VecScale(z, -3));
  ON_HALVES(VecScale(hw[i], -3));
  PetscCall(CompareBig(z, w, "VecScale"));
  PetscCall(VecSwap(z, x)); /* z = x, x = the old z (= w) */
  PetscCall(Halves(z, hz));
  PetscCall(Halves(x, hw));
  {
    PetscBool e[2];
    Vec       hx2[2];
    PetscCall(Halves(w, hx2));
    for (int i = 0; i < 2; i++) PetscCall(VecEqual(hw[i], hx2[i], &e[i]));
    PetscCheck(e[0] && e[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "VecSwap: x does not hold the old z");
    PetscCall(DestroyHalves(hx2));
  }
  PetscCall(DestroyHalves(hz));
  PetscCall(DestroyHalves(hw));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "VecSwap: exchanged\n"));
#undef ON_HALVES
  PetscCall(DestroyHalves(hx));
  PetscCall(DestroyHalves(hy));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt c2[2] = {3, 2}, c3[3] = {10, 12, 14}, c3b[3] = {40, 40, 40};
  PetscBool      want = PETSC_FALSE, big = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_vec_long", &want, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-big", &big, NULL));
  if (big)
    PetscCall(CheckBig());
  else {
    PetscCall(CheckSmall(2, c2, 3, want));
    PetscCall(CheckSmall(3, c3, 2, want));
    PetscCall(CheckSmall(3, c3b, 3, want));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST
  test:
    suffix: 1
    requires: cuda
    args: -dm_qbox_vec_long
    output_file: none
  test:
    suffix: 2
    nsize: 2
    requires: cuda
    args: -dm_qbox_vec_long
    output_file: none
  test:
    suffix: off
    requires: cuda
    output_file: none
  test:
    suffix: big
    requires: cuda slow
    args: -big
    output_file: none
    timeout: 600
TEST*/
