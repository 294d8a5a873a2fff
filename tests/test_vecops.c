static char help[] = "The vector operations DMQBOX installs on its CUDA vectors, against PETSc's own on a CUDA vector of the same layout\n\
made without the DM. VecMDot (-dm_qbox_vec_mdot, src/sys/cuda/vecmdot.cu) against VecDot one vector at a time (cuBLAS\n\
dot): relative difference < 1e-12 for 1 to 11 vectors (one and two batches of 8), bitwise the same on a second call.\n\
VecAYPX (-dm_qbox_vec_aypx, src/sys/cuda/vecaypx.cu) against PETSc's (cuBLAS scal and axpy): every entry within 4 units\n\
of rounding of |alpha y| + |x| for alpha = -1, 0.5, 2.5, 0, 1. Vectors of 35 to 1.8M entries; each operation installed on\n\
the DM's vectors and on their duplicates (the Krylov work vectors), and only when its option is on. Needs a GPU and a\n\
PETSc with CUDA.\n\n";

#include <petscvpatch.h>
#include <petsc/private/vecimpl.h>

/* y = x + alpha y by the DM's vector y and by PETSc's plain vector py (both holding y0), compared entry by entry */
static PetscErrorCode CheckAYPX(Vec x, Vec y, Vec py, Vec y0, PetscScalar alpha)
{
  const PetscScalar *a, *b, *xa, *ya;
  PetscInt           n, N, bad = -1;
  PetscReal          err = 0;

  PetscFunctionBeginUser;
  PetscCall(VecCopy(y0, y));
  PetscCall(VecCopy(y0, py));
  PetscCall(VecAYPX(y, alpha, x));
  PetscCall(VecAYPX(py, alpha, x));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecGetArrayRead(y, &a));
  PetscCall(VecGetArrayRead(py, &b));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(y0, &ya));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal e = PetscAbsScalar(a[i] - b[i]) / (PetscAbsScalar(alpha * ya[i]) + PetscAbsScalar(xa[i]) + PETSC_MIN_REAL);
    if (e > err) {
      err = e;
      bad = i;
    }
  }
  PetscCall(VecRestoreArrayRead(y0, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(py, &b));
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCheck(err <= 4 * PETSC_MACHINE_EPSILON, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ", alpha = %g: VecAYPX differs from PETSc's by %g units of rounding (local entry %" PetscInt_FMT ")", N, (double)PetscRealPart(alpha),
             (double)(err / PETSC_MACHINE_EPSILON), bad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCase(PetscInt dim, const PetscInt cells[], PetscInt k, PetscBool want, PetscBool wantaypx)
{
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
  const PetscInt  nvs[] = {1, 2, 5, 8, 9, 11};
  DM              dm;
  Vec             x, plain, *y;
  PetscScalar     z[11], z2[11];
  PetscInt        N;
  PetscRandom     rnd;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, &dm));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecDuplicateVecs(x, 11, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(x, rnd));
  for (PetscInt j = 0; j < 11; j++) PetscCall(VecSetRandom(y[j], rnd));

  /* PETSc's own operation: a CUDA vector of the same layout made without the DM */
  PetscCall(VecCreate(PETSC_COMM_WORLD, &plain));
  PetscCall(VecSetLayout(plain, x->map));
  PetscCall(VecSetType(plain, VECCUDA));
  PetscCheck((x->ops->mdot != plain->ops->mdot) == want, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": DMQBOX's VecMDot is %sinstalled on its global vector", N, want ? "not " : "");
  PetscCheck(y[10]->ops->mdot == x->ops->mdot, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecDuplicateVecs() lost the vector's VecMDot", N);
  PetscCheck((x->ops->aypx != plain->ops->aypx) == wantaypx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": DMQBOX's VecAYPX is %sinstalled on its global vector", N, wantaypx ? "not " : "");
  PetscCheck(y[10]->ops->aypx == x->ops->aypx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ": VecDuplicateVecs() lost the vector's VecAYPX", N);
  {
    const PetscScalar alphas[] = {-1.0, 0.5, 2.5, 0.0, 1.0};
    for (size_t c = 0; c < sizeof(alphas) / sizeof(alphas[0]); c++) PetscCall(CheckAYPX(x, y[0], plain, y[1], alphas[c]));
  }

  for (size_t c = 0; c < sizeof(nvs) / sizeof(nvs[0]); c++) {
    const PetscInt nv = nvs[c];
    PetscCall(VecMDot(x, nv, y, z));
    PetscCall(VecMDot(x, nv, y, z2));
    for (PetscInt j = 0; j < nv; j++) {
      PetscScalar ref;
      PetscReal   nx, ny;
      PetscCall(VecDot(x, y[j], &ref));
      PetscCall(VecNorm(x, NORM_2, &nx));
      PetscCall(VecNorm(y[j], NORM_2, &ny));
      PetscCheck(PetscAbsScalar(z[j] - ref) <= 1e-12 * nx * ny, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ", %" PetscInt_FMT " vectors: VecMDot entry %" PetscInt_FMT " is %.17g, VecDot gives %.17g", N, nv, j, (double)PetscRealPart(z[j]),
                 (double)PetscRealPart(ref));
      PetscCheck(z[j] == z2[j], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N = %" PetscInt_FMT ", %" PetscInt_FMT " vectors: VecMDot entry %" PetscInt_FMT " differs between two calls", N, nv, j);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ", %" PetscInt_FMT " entries: VecMDot = VecDot for 1..11 vectors, VecAYPX = PETSc's\n", dim, k, N));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&plain));
  PetscCall(VecDestroyVecs(11, &y));
  PetscCall(VecDestroy(&x));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt c2[2] = {3, 2}, c3[3] = {10, 12, 14}, c3b[3] = {40, 40, 40};
  PetscBool      want = PETSC_TRUE, wantaypx = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_vec_mdot", &want, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_vec_aypx", &wantaypx, NULL));
  PetscCall(CheckCase(2, c2, 3, want, wantaypx));
  PetscCall(CheckCase(3, c3, 2, want, wantaypx));
  PetscCall(CheckCase(3, c3b, 3, want, wantaypx));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST
  test:
    suffix: 1
    requires: cuda
    output_file: none
  test:
    suffix: 2
    nsize: 2
    requires: cuda
    output_file: none
  test:
    suffix: petsc
    requires: cuda
    args: -dm_qbox_vec_mdot 0 -dm_qbox_vec_aypx 0
    output_file: none
TEST*/
