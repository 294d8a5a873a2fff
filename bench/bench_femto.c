static char help[] = "femto's element-kernel table on the GPU: on the unit cube of -cells^3 hexahedra (default 100: 1e6 cells) of each\n\
degree of -degrees (default 1,2,3), read through a connectivity array as an unstructured mesh, the times of\n\
  interpolation (nodal values -> reference gradients at the (p+1)^3 Gauss points),\n\
  integration + assembly with atomics, by 8 colors (deterministic), and with element vectors + a gather (two kernels),\n\
  the pointwise G grad (6 stored values per point), and the operator in separate kernels (interpolate, G, integrate\n\
  with atomics), for comparison with the fused mapped MatMult (bench_kernels -matmult_only).\n\
Timing: -warmup runs, then -repeats runs each between device synchronizations (wall clock), the median reported, us.\n\n";

#include <petscdevice.h>
#include <petscvpatch/private/vpfemto.h>
#include "vpsolve.h" /* VPSolveSync, VPSolveCmpReal */
#include "../tests/vptest.h"

typedef enum {
  F_INTERP,
  F_ATOMIC,
  F_COLORED,
  F_ELEMENTS,
  F_GATHER,
  F_POINTWISE,
  F_OPERATOR,
  F_NUM
} FemtoTiming;
static const char *const names[F_NUM] = {"interpolation_us", "integration_atomic_us", "integration_colored_us", "integration_elements_us", "gather_us", "pointwise_us", "operator_us"};

static PetscErrorCode RunOnce(FemtoTiming which, VPFemtoMesh *m, const PetscReal *u, PetscReal *grad, const PetscReal *G, PetscReal *flux, PetscReal *r)
{
  PetscFunctionBeginUser;
  switch (which) {
  case F_INTERP:
    PetscCall(VPFemtoInterpolate(m, u, grad));
    break;
  case F_ATOMIC:
    PetscCall(VPFemtoIntegrate(m, VP_FEMTO_ATOMIC, flux, r));
    break;
  case F_COLORED:
    PetscCall(VPFemtoIntegrate(m, VP_FEMTO_COLORED, flux, r));
    break;
  case F_ELEMENTS:
    PetscCall(VPFemtoIntegrateElements(m, flux));
    break;
  case F_GATHER:
    PetscCall(VPFemtoGather(m, r));
    break;
  case F_POINTWISE:
    PetscCall(VPFemtoPointwise(m, G, grad, flux));
    break;
  default:
    PetscCall(VPFemtoInterpolate(m, u, grad));
    PetscCall(VPFemtoPointwise(m, G, grad, flux));
    PetscCall(VPFemtoIntegrate(m, VP_FEMTO_ATOMIC, flux, r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt           degrees[10], ndeg, ncells = 100, repeats = 10, warmup = 3;
  char               gpu[256] = "unknown", commit[64] = "unknown";
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cells", &ncells, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &repeats, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCheck(repeats >= 1 && repeats <= 100, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeats must be in 1..100");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gpu_name", gpu, sizeof(gpu), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-commit", commit, sizeof(commit), NULL));
  PetscCall(VPTestGetDegrees(3, degrees, &ndeg));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| p | cells | interpolation | integration, atomics | integration, colored | element vectors + gather | pointwise G | operator (interp + G + atomics) |\n|---|---|---|---|---|---|---|---|\n"));
  for (PetscInt i = 0; i < ndeg; i++) {
    VPFemtoMesh *m;
    PetscReal   *h, *u, *grad, *flux, *G, *r, t[F_NUM], ts[100], t0, t1;
    size_t       nqv;

    PetscCall(VPFemtoMeshCreate(ncells, degrees[i], &m));
    nqv = (size_t)(m->ncells * m->nq);
    PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, (size_t)m->nnodes, &u));
    PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, (size_t)m->nnodes, &r));
    PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, 3 * nqv, &grad));
    PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, 3 * nqv, &flux));
    PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, 6 * nqv, &G));
    PetscCall(PetscMalloc1(6 * nqv, &h)); /* values: a smooth u, G = the identity plus a small symmetric part */
    for (PetscInt v = 0; v < m->nnodes; v++) h[v] = PetscSinReal(0.001 * (PetscReal)v);
    PetscCall(VPFemtoCopy(u, h, sizeof(PetscReal) * (size_t)m->nnodes));
    for (size_t j = 0; j < 6 * nqv; j++) h[j] = (j % 6 == 0 || j % 6 == 3 || j % 6 == 5) ? 1.0 : 0.01 * (PetscReal)(j % 7);
    PetscCall(VPFemtoCopy(G, h, sizeof(PetscReal) * 6 * nqv));
    PetscCall(PetscDeviceArrayZero(dctx, r, (size_t)m->nnodes));
    PetscCall(VPFemtoInterpolate(m, u, grad));
    PetscCall(VPFemtoPointwise(m, G, grad, flux));
    PetscCall(PetscFree(h));
    for (PetscInt w = 0; w < F_NUM; w++) {
      for (PetscInt rr = 0; rr < warmup + repeats; rr++) {
        PetscCall(VPSolveSync(PETSC_TRUE));
        PetscCall(PetscTime(&t0));
        PetscCall(RunOnce((FemtoTiming)w, m, u, grad, G, flux, r));
        PetscCall(VPSolveSync(PETSC_TRUE));
        PetscCall(PetscTime(&t1));
        if (rr >= warmup) ts[rr - warmup] = t1 - t0;
      }
      qsort(ts, (size_t)repeats, sizeof(PetscReal), VPSolveCmpReal);
      t[w] = 1e6 * ts[repeats / 2];
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "{\"commit\": \"%s\", \"gpu\": \"%s\", \"p\": %" PetscInt_FMT ", \"cells\": %" PetscInt_FMT ", \"nodes\": %" PetscInt_FMT, commit, gpu, m->p, m->ncells, m->nnodes));
    for (PetscInt w = 0; w < F_NUM; w++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", \"%s\": %.1f", names[w], (double)t[w]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", \"repeats\": %" PetscInt_FMT "}\n", repeats));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %" PetscInt_FMT " | %" PetscInt_FMT " | %.0f | %.0f | %.0f | {%.0f, %.0f} | %.0f | %.0f |\n", m->p, m->ncells, (double)t[F_INTERP], (double)t[F_ATOMIC], (double)t[F_COLORED], (double)t[F_ELEMENTS],
                          (double)t[F_GATHER], (double)t[F_POINTWISE], (double)t[F_OPERATOR]));
    PetscCall(PetscDeviceFree(dctx, u));
    PetscCall(PetscDeviceFree(dctx, r));
    PetscCall(PetscDeviceFree(dctx, grad));
    PetscCall(PetscDeviceFree(dctx, flux));
    PetscCall(PetscDeviceFree(dctx, G));
    PetscCall(VPFemtoMeshDestroy(&m));
  }
  PetscCall(PetscFinalize());
  return 0;
}
