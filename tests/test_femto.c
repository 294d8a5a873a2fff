static char help[] = "femto's element kernels on the GPU (vpfemto.h) against independent host computations on a mesh of -cells^3\n\
hexahedra for each degree of -degrees: interpolation of a linear function (its reference gradient known exactly) and of\n\
random values (against a direct sum over all nodes for every point, no sum factorization), the pointwise G grad, the\n\
integration with atomics, colors and gather (against a direct sum, added into a nonzero vector), and the colored and\n\
gather assemblies bitwise equal from run to run (deterministic).\n\n";

#include <petscdevice.h>
#include <petscvpatch/private/vpfemto.h>
#include "vptest.h"

static PetscErrorCode ToHost(PetscDeviceContext dctx, const PetscReal *d, size_t n, PetscReal *h)
{
  PetscFunctionBeginUser;
  PetscCall(VPFemtoCopy(h, d, n * sizeof(PetscReal)));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal MaxRelDiff(size_t n, const PetscReal *a, const PetscReal *b)
{
  PetscReal d = 0, s = 0;
  for (size_t j = 0; j < n; j++) {
    d = PetscMax(d, PetscAbsReal(a[j] - b[j]));
    s = PetscMax(s, PetscAbsReal(b[j]));
  }
  return s > 0 ? d / s : d;
}

/* the value of 1D basis function i (S) or its derivative (D) at Gauss point q */
static PetscReal B(const VPFemtoMesh *m, PetscBool der, PetscInt q, PetscInt i)
{
  return der ? m->basis.D[q * (m->p + 1) + i] : m->basis.S[q * (m->p + 1) + i];
}

static PetscErrorCode CheckDegree(PetscDeviceContext dctx, PetscInt n, PetscInt p, PetscRandom rnd)
{
  VPFemtoMesh *m;
  PetscInt     N = p + 1, nn = n * p + 1;
  size_t       nq3;
  PetscReal   *u, *grad, *flux, *G, *r, *hu, *hg, *hf, *hG, *ref, *out, *r0, *once, err;

  PetscFunctionBeginUser;
  PetscCall(VPFemtoMeshCreate(n, p, &m));
  nq3 = (size_t)(3 * m->ncells * m->nq);
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, (size_t)m->nnodes, &u));
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, (size_t)m->nnodes, &r));
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, nq3, &grad));
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, nq3, &flux));
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, 2 * nq3, &G));
  PetscCall(PetscMalloc6(m->nnodes, &hu, nq3, &hg, nq3, &hf, 2 * nq3, &hG, nq3 + m->nnodes, &ref, nq3 + m->nnodes, &out));
  PetscCall(PetscMalloc2(m->nnodes, &r0, m->nnodes, &once));

  /* 1. u = x + 2 y + 3 z at the nodes (Gauss-Lobatto points of each cell): du/dxi = (1, 2, 3) / n at every point */
  for (PetscInt v = 0; v < m->nnodes; v++) {
    PetscInt  ix[3] = {v % nn, (v / nn) % nn, v / (nn * nn)};
    PetscReal x[3];
    for (PetscInt d = 0; d < 3; d++) {
      const PetscInt c = PetscMin(ix[d] / p, n - 1);
      x[d]             = (c + m->basis.nodes[ix[d] - c * p]) / n;
    }
    hu[v] = x[0] + 2 * x[1] + 3 * x[2];
  }
  PetscCall(VPFemtoCopy(u, hu, sizeof(PetscReal) * (size_t)m->nnodes));
  PetscCall(VPFemtoInterpolate(m, u, grad));
  PetscCall(ToHost(dctx, grad, nq3, out));
  for (size_t j = 0; j < nq3; j++) ref[j] = (PetscReal)(1 + j % 3) / n;
  err = MaxRelDiff(nq3, out, ref);
  PetscCheck(err < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "p = %" PetscInt_FMT ": the gradient of a linear function is off by %g", p, (double)err);

  /* 2. random u against the direct sum over the nodes of each cell */
  for (PetscInt v = 0; v < m->nnodes; v++) PetscCall(PetscRandomGetValueReal(rnd, &hu[v]));
  PetscCall(VPFemtoCopy(u, hu, sizeof(PetscReal) * (size_t)m->nnodes));
  PetscCall(VPFemtoInterpolate(m, u, grad));
  PetscCall(ToHost(dctx, grad, nq3, out));
  for (PetscInt c = 0; c < m->ncells; c++)
    for (PetscInt q = 0; q < m->nq; q++)
      for (PetscInt d = 0; d < 3; d++) {
        PetscReal s = 0;
        for (PetscInt l = 0; l < m->npe; l++) s += hu[m->conn[c * m->npe + l]] * B(m, d == 0, q % N, l % N) * B(m, d == 1, (q / N) % N, (l / N) % N) * B(m, d == 2, q / (N * N), l / (N * N));
        ref[(c * m->nq + q) * 3 + d] = s;
      }
  err = MaxRelDiff(nq3, out, ref);
  PetscCheck(err < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "p = %" PetscInt_FMT ": interpolation differs from the direct sum by %g", p, (double)err);

  /* 3. pointwise: flux = G grad */
  for (size_t j = 0; j < 2 * nq3; j++) PetscCall(PetscRandomGetValueReal(rnd, &hG[j]));
  PetscCall(VPFemtoCopy(G, hG, sizeof(PetscReal) * 2 * nq3));
  PetscCall(VPFemtoPointwise(m, G, grad, flux));
  PetscCall(ToHost(dctx, flux, nq3, out));
  for (size_t pt = 0; pt < nq3 / 3; pt++) {
    const PetscReal *g = hG + 6 * pt, *x = ref + 3 * pt;
    const PetscReal  Gm[3][3] = {{g[0], g[1], g[2]}, {g[1], g[3], g[4]}, {g[2], g[4], g[5]}};
    for (PetscInt d = 0; d < 3; d++) hf[3 * pt + d] = Gm[d][0] * x[0] + Gm[d][1] * x[1] + Gm[d][2] * x[2];
  }
  err = MaxRelDiff(nq3, out, hf);
  PetscCheck(err < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "p = %" PetscInt_FMT ": G grad differs by %g", p, (double)err);

  /* 4. integration of random fluxes, added into a random vector, against the direct sum */
  for (size_t j = 0; j < nq3; j++) PetscCall(PetscRandomGetValueReal(rnd, &hf[j]));
  for (PetscInt v = 0; v < m->nnodes; v++) PetscCall(PetscRandomGetValueReal(rnd, &r0[v]));
  PetscCall(VPFemtoCopy(flux, hf, sizeof(PetscReal) * nq3));
  for (PetscInt v = 0; v < m->nnodes; v++) ref[v] = r0[v];
  for (PetscInt c = 0; c < m->ncells; c++)
    for (PetscInt l = 0; l < m->npe; l++) {
      PetscReal s = 0;
      for (PetscInt q = 0; q < m->nq; q++) {
        const PetscInt  qx = q % N, qy = (q / N) % N, qz = q / (N * N), lx = l % N, ly = (l / N) % N, lz = l / (N * N);
        const PetscReal w = m->basis.qwts[qx] * m->basis.qwts[qy] * m->basis.qwts[qz], *f = hf + (c * m->nq + q) * 3;
        s += w * (f[0] * B(m, PETSC_TRUE, qx, lx) * B(m, PETSC_FALSE, qy, ly) * B(m, PETSC_FALSE, qz, lz) + f[1] * B(m, PETSC_FALSE, qx, lx) * B(m, PETSC_TRUE, qy, ly) * B(m, PETSC_FALSE, qz, lz) +
                  f[2] * B(m, PETSC_FALSE, qx, lx) * B(m, PETSC_FALSE, qy, ly) * B(m, PETSC_TRUE, qz, lz));
      }
      ref[m->conn[c * m->npe + l]] += s;
    }
  for (PetscInt a = VP_FEMTO_ATOMIC; a <= VP_FEMTO_GATHER; a++) {
    for (PetscInt rep = 0; rep < 2; rep++) {
      PetscCall(VPFemtoCopy(r, r0, sizeof(PetscReal) * (size_t)m->nnodes));
      PetscCall(VPFemtoIntegrate(m, (VPFemtoAssembly)a, flux, r));
      PetscCall(ToHost(dctx, r, (size_t)m->nnodes, out));
      err = MaxRelDiff((size_t)m->nnodes, out, ref);
      PetscCheck(err < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "p = %" PetscInt_FMT ": integration (%s) differs from the direct sum by %g", p, VPFemtoAssemblies[a], (double)err);
      if (a == VP_FEMTO_ATOMIC) break;
      if (rep == 0)
        PetscCall(PetscArraycpy(once, out, m->nnodes));
      else
        for (PetscInt v = 0; v < m->nnodes; v++) PetscCheck(once[v] == out[v], PETSC_COMM_SELF, PETSC_ERR_PLIB, "p = %" PetscInt_FMT ": the %s assembly is not deterministic at node %" PetscInt_FMT, p, VPFemtoAssemblies[a], v);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "p = %" PetscInt_FMT ", %" PetscInt_FMT " cells: interpolation, pointwise, integration (atomic, colored, gather) agree with the host\n", p, m->ncells));
  PetscCall(PetscFree6(hu, hg, hf, hG, ref, out));
  PetscCall(PetscFree2(r0, once));
  PetscCall(PetscDeviceFree(dctx, u));
  PetscCall(PetscDeviceFree(dctx, r));
  PetscCall(PetscDeviceFree(dctx, grad));
  PetscCall(PetscDeviceFree(dctx, flux));
  PetscCall(PetscDeviceFree(dctx, G));
  PetscCall(VPFemtoMeshDestroy(&m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt           degrees[10], ndeg, n = 3;
  PetscRandom        rnd;
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cells", &n, NULL));
  PetscCall(VPTestGetDegrees(VP_FEMTO_MAX_DEGREE, degrees, &ndeg));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  for (PetscInt i = 0; i < ndeg; i++) PetscCall(CheckDegree(dctx, n, degrees[i], rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: gpu
    requires: cuda

  test:
    suffix: gpu_p3_6cells
    requires: cuda
    args: -cells 6 -degrees 3

  test:
    suffix: degree_out_of_range
    requires: cuda
    args: -degrees 7
    expect_error: not in 1..6

TEST*/
