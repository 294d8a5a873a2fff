static char help[] = "What the MPI under PETSc moves between GPUs: a ping-pong of device buffers (cudaMalloc(), as the\n\
exchanges of DMQBOX hand to MPI with -dm_qbox_exchange_device) between rank 0 and each other rank in turn, for message\n\
sizes from -min_bytes to -max_bytes (times 4), -repeats round trips after a warm-up, between device synchronizations;\n\
-host: host buffers instead (the same path as PETSc's staging). Each message is checked where it arrives. Prints one\n\
JSON line per peer and size: one-way time (half a round trip) and bandwidth. Run it with config/mpiexec-gpu.sh to see\n\
what the exchanges of a multi-GPU solve can get (e.g. CUDA IPC over NVLink against a copy through host memory).\n\n";

#include <petscsys.h>
#include <petscdevice_cuda.h>

static PetscErrorCode Fill(char *buf, PetscBool host, size_t n, int seed)
{
  char *h;

  PetscFunctionBegin;
  if (host)
    h = buf;
  else
    PetscCall(PetscMalloc1(n, &h));
  for (size_t i = 0; i < n; i++) h[i] = (char)((i * 131 + (size_t)seed) & 0x7f);
  if (!host) {
    PetscCallCUDA(cudaMemcpy(buf, h, n, cudaMemcpyHostToDevice));
    PetscCall(PetscFree(h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the number of bytes of buf that differ from Fill(seed) */
static PetscErrorCode Check(const char *buf, PetscBool host, size_t n, int seed, size_t *bad)
{
  char *h;

  PetscFunctionBegin;
  if (host)
    h = (char *)buf;
  else {
    PetscCall(PetscMalloc1(n, &h));
    PetscCallCUDA(cudaMemcpy(h, buf, n, cudaMemcpyDeviceToHost));
  }
  *bad = 0;
  for (size_t i = 0; i < n; i++) *bad += h[i] != (char)((i * 131 + (size_t)seed) & 0x7f);
  if (!host) PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt rank, size;
  PetscInt    minb = 8192, maxb = 64 << 20, repeats = 20;
  PetscBool   host = PETSC_FALSE;
  char       *sbuf, *rbuf;
  int         failed = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_transport", NULL);
  PetscCall(PetscOptionsInt("-min_bytes", "smallest message", NULL, minb, &minb, NULL));
  PetscCall(PetscOptionsInt("-max_bytes", "largest message", NULL, maxb, &maxb, NULL));
  PetscCall(PetscOptionsInt("-repeats", "round trips timed per size", NULL, repeats, &repeats, NULL));
  PetscCall(PetscOptionsBool("-host", "host buffers instead of device buffers", NULL, host, &host, NULL));
  PetscOptionsEnd();
  PetscCheck(size >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "bench_transport needs at least 2 ranks (mpiexec -n 2 or more)");
  PetscCheck(minb >= 1 && maxb >= minb && maxb <= PETSC_MPI_INT_MAX, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-min_bytes %" PetscInt_FMT " and -max_bytes %" PetscInt_FMT ": need 1 <= min <= max < 2^31", minb, maxb);
  PetscCheck(repeats >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeats must be at least 1");
  if (!host) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  if (host)
    PetscCall(PetscMalloc2(maxb, &sbuf, maxb, &rbuf));
  else {
    PetscCallCUDA(cudaMalloc((void **)&sbuf, maxb));
    PetscCallCUDA(cudaMalloc((void **)&rbuf, maxb));
  }
  for (PetscMPIInt peer = 1; peer < size; peer++) {
    for (PetscInt n = minb, last = 0; !last; n = last ? n : 4 * n) { /* minb, 4 minb, ... up to maxb, no overflow */
      PetscMPIInt m  = (PetscMPIInt)n;
      double      t0 = 0, t1 = 0;
      size_t      bad = 0;
      int         anybad;

      last = n > maxb / 4;
      if (rank == 0 || rank == peer) {
        const PetscMPIInt other = rank == 0 ? peer : 0;

        PetscCall(Fill(sbuf, host, (size_t)n, rank));
        if (!host) PetscCallCUDA(cudaDeviceSynchronize());
        for (PetscInt it = -2; it < repeats; it++) {
          if (it == 0) t0 = MPI_Wtime();
          if (rank == 0) {
            PetscCallMPI(MPI_Send(sbuf, m, MPI_CHAR, other, 0, PETSC_COMM_WORLD));
            PetscCallMPI(MPI_Recv(rbuf, m, MPI_CHAR, other, 0, PETSC_COMM_WORLD, MPI_STATUS_IGNORE));
          } else {
            PetscCallMPI(MPI_Recv(rbuf, m, MPI_CHAR, other, 0, PETSC_COMM_WORLD, MPI_STATUS_IGNORE));
            PetscCallMPI(MPI_Send(sbuf, m, MPI_CHAR, other, 0, PETSC_COMM_WORLD));
          }
        }
        if (!host) PetscCallCUDA(cudaDeviceSynchronize());
        t1 = MPI_Wtime();
        PetscCall(Check(rbuf, host, (size_t)n, other, &bad));
      }
      anybad = bad != 0;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &anybad, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
      failed |= anybad;
      if (rank == 0) {
        const double oneway = (t1 - t0) / (2.0 * (double)repeats);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "{\"bench\": \"transport\", \"memory\": \"%s\", \"ranks\": %d, \"peer\": %d, \"bytes\": %" PetscInt_FMT ", \"oneway_us\": %.2f, \"gb_s\": %.2f, \"status\": \"%s\"}\n", host ? "host" : "device", size,
                              peer, n, 1e6 * oneway, (double)n / oneway / 1e9, anybad ? "wrong data" : "ok"));
      }
    }
  }
  if (host)
    PetscCall(PetscFree2(sbuf, rbuf));
  else {
    PetscCallCUDA(cudaFree(sbuf));
    PetscCallCUDA(cudaFree(rbuf));
  }
  PetscCheck(!failed, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "bench_transport: a message arrived with wrong bytes: the MPI does not move these buffers correctly");
  PetscCall(PetscFinalize());
  return 0;
}
