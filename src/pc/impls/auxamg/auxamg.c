/*
  PCAUXAMG: unsmoothed aggregation AMG whose aggregates come from a region tree over an auxiliary structured grid laid
  on the points' coordinates (seed 004, "A parallel auxiliary grid AMG method for GPU"), on the host and the GPU.

  Set-up. A uniform auxiliary grid of M^d cells covers the bounding box of all points, M = (N / p)^(1/d) rounded for
  about p = -pc_auxamg_points_per_cell points per cell on average (default 1: on a quasi-uniform mesh the cells'
  faces fall between the points). A level's aggregates are the points of one cell, then the (up to) 2^d children of
  a tree cell (quadtree in 2D, octree in 3D; the parents' grid has ceil(M / 2) cells per direction); a tree level
  that does not halve the unknowns is skipped, so with p = 1 level 1 aggregates the points of 2^d cells. M is not
  restricted to a power of two (with M = 2^L the points per cell would vary by up to 2^(d/2) either way with the
  mesh size, and the first aggregates' size and their alignment with the points set the convergence: measured in
  3D, 15-16 iterations from 0.26M to 1e8 unknowns against 15-20 with M = 2^L). The coarsening is fixed by the
  geometry and needs no graph algorithm. Empty cells carry no unknown (a disk or a cavity in the box). On meshes
  graded toward a region (denser points there) a uniform grid makes large aggregates where the points are dense and
  the iterations grow (bench/RESULTS.md): the adaptive tree cuts a tree over the points' Morton order where they
  cluster instead (PCAuxAMGSetUpTree(), set up on the host; -pc_auxamg_tree, by default where the uniform grid's
  fullest cell holds far more than the average).
  Aggregates stay on the rank of their points. The
  prolongation P is piecewise constant (one 1 per row), and the coarse operator P^T A P is summed directly from A's
  entries: entry (I, J) is the sum of a_ij over i in aggregate I and j in aggregate J (no general sparse product).
  Solve. A K-cycle (Notay and Vassilevski's nonlinear AMLI; -pc_auxamg_cycle k, the default) or a V-cycle (v): one
  forward Gauss-Seidel sweep before the coarse correction, one backward sweep after it (on the levels below the finest
  one damped Jacobi sweep each, -pc_auxamg_coarse_smoother), and on each coarse level of
  the K-cycle up to two flexible CG steps preconditioned by the next cycle; the second step is skipped when the first
  reduced the residual by -pc_auxamg_ktol. The coarsest level is solved by LU (PCREDUNDANT) on the host, by its
  inverse on the GPU. The K-cycle is nonlinear: use a flexible outer method (KSPFGMRES; KSPFCG on the host). The Gauss-Seidel is colored by the tree (the default):
  the 2^d parity classes of a level's cells one after the other, the rows of a cell in order, the other cells of the
  color read as before the color, so the cells of a color can be smoothed in parallel (the GPU's design) and the
  result does not depend on an order among them; -pc_auxamg_smoother local uses processor-local sweeps (MatSOR()).

  The Gauss-Seidel's colors come from the coupling radius r of a level (the farthest tree-cell offset between the
  cells of two coupled rows, 1 on most meshes): the (r + 1)^d classes of the cells' coordinates modulo r + 1, so two
  cells of a color never couple and the sweep updates in place.
  On the GPU (an AIJCUSPARSE matrix on one rank; -pc_auxamg_gpu false keeps the host path) the same set-up and cycle
  run as CUDA kernels (cuda/auxamg.cu): the same aggregates and colors; the coarse operators are summed straight into
  the fixed pattern of the (2r + 1)^d tree cells around each coarse cell (27 in 3D, 9 in 2D when r = 1), stored as
  ELL; level 0 keeps A's own CSR. The keys of the finest level are computed on the host from the host coordinates.
  Everything below level 0 runs as one CUDA graph with no host synchronization (AuxAMGCycle*_CUDA(): the K-cycle's
  inner products and coefficients on the device, a skipped second step by a device flag, the coarsest level of at most
  4096 unknowns, the GPU's default coarse size, by its inverse from cuSOLVER); level 0's operations are launched from
  here, without synchronization either. A larger coarsest level keeps the host's LU and the host-launched levels.
  On several ranks with an AIJCUSPARSE matrix the levels are set up on the host (the host path's aggregates, colors
  and coarse operators, made AIJCUSPARSE) and applied on the device: the colored Gauss-Seidel by the same kernel as
  one rank's, on the diagonal block, after a kernel that takes the off-rank block's product with the ghosts out of the
  right-hand side of the color's rows; before each color only the ghosts of the color swept last are exchanged. The
  first level below the finest of at most -pc_auxamg_gather_size unknowns and the levels below it are gathered on rank
  0 into a PCAUXAMG on one rank (the GPU path, its cycle on the device), which continues the tree from that level's
  keys; its K-cycle steps on that level stay on all ranks. The adaptive tree with an AIJCUSPARSE matrix is set up on
  the host and applied on the device the same way (its colors from a greedy coloring of the cells' graph), on one rank
  too. Not yet: that set-up on the device.
*/
#include <petscvpatch/private/vpatchimpl.h>
#include <petscdm.h>
#include <petscksp.h>
#include <petscsf.h>
#include <petsc/private/pcimpl.h>
#include <petsc/private/matimpl.h>
#include <petscvpatch/private/vpauxamg.h>
#include <petscvpatch/private/qboximpl.h>
#if defined(__has_include)
#if __has_include(<../src/mat/impls/aij/mpi/mpiaij.h>)
#include <../src/mat/impls/aij/mpi/mpiaij.h> /* Mat_MPIAIJ: the star forest of a level's products (PCAuxAMGMatSF()) */
#define AUXAMG_MPIAIJ 1
#endif
#endif

#define AUXAMG_COARSENING 0.5 /* a tree level is a multigrid level when it keeps at most this fraction of the unknowns */

enum {
  PC_AUXAMG_SMOOTHER_LOCAL,
  PC_AUXAMG_SMOOTHER_COLORED,
  PC_AUXAMG_SMOOTHER_AUTO
};
static const char *const PCAuxAMGSmoothers[] = {"local", "colored", "auto"};

enum {
  PC_AUXAMG_TREE_UNIFORM,
  PC_AUXAMG_TREE_ADAPTIVE,
  PC_AUXAMG_TREE_AUTO
};
static const char *const PCAuxAMGTrees[] = {"uniform", "adaptive", "auto"};
/* -pc_auxamg_tree auto (the default) takes the adaptive tree where a cell of the uniform grid (its
   points on one rank) holds more than this many times 2^d times the average points per cell. The fullest cell (p = 1),
   measured with ex5, ex1 and bench_auxamg (bench/history/2026-11-28.md; the ex5 and ex1 counts again on 2026-11-29,
   after the count's fix, unchanged: 17, 36, 69, 131 on ex5's corner grading, 27, 30, 64 on its tets, 27 and 9 on the
   Q_7 nodes): 1-4 points on quasi-uniform 2D and 3D meshes
   (where the adaptive tree takes 0-2 iterations more); 3^d on a DMQBOX's nodes at k = 7 and 8 (Gauss-Lobatto points
   crowd at the cells' faces; the tree took 20 iterations there in 3D against the uniform grid's 15); 17-289 on 2D and
   64-125 on 3D meshes graded toward a corner (below that, 13-16 and 27-30 on the smallest ones, which keep the uniform
   grid); 9 on ex5's disk at 148K unknowns (the tree: 42 iterations against 70; it keeps the uniform grid) */
#define AUXAMG_TREE_AUTO_FULL 4
/* the same with an AIJCUSPARSE matrix: there the uniform grid is set up on the device and the tree on the host, about
   40x slower (10M unknowns: 0.4-0.8 s against 19-25 s), so the tree is taken only where the uniform grid's iterations
   run away. Measured on one H200 (bench_auxamg -grade 2, -pc_auxamg_tree uniform against the tree; iterations, set-up +
   solve s; bench/history/2026-11-28.md and 2026-11-29.md): 2D offset 0.2, fullest 36 points at 1M, 10M: 52, 0.44 +
   0.70 against 23, 26.4 + 1.18; 3D offset 0.2, fullest 125 at 1M, 10M: 39, 0.79 + 1.90 against 24, 16.2 + 0.55; 2D
   offset 0 (cells h^2 wide), fullest 961 at 1M and 3136 at 10M: 129 and 291, 0.52 + 17.7 s at 10M against 25, 19.3 +
   1.20 (one solve about even, each further one 15x faster on the tree); 3D offset 0, fullest 912 at 1M. 64 x 2^d puts
   these at 256 (2D) and 512 points (3D): the tree for the last two */
#define AUXAMG_TREE_AUTO_FULL_DEVICE 64

/* the coarsest level's largest size by default: on the host its LU is cheap and the cycle's cost per level is small;
   on the GPU a level costs its kernels' launches, which the K-cycle doubles per level, so fewer levels and a larger
   coarsest level (one dense matrix-vector product per visit) are faster: the largest that the GPU path inverts
   (measured with 100, 1024, 2048 and 4096 in 2D and 3D at 1M and 10M unknowns: 4096 fastest in each, bench/history) */
#define AUXAMG_COARSE_HOST 100
#define AUXAMG_COARSE_GPU  AUXAMG_DENSE_MAX

/* several ranks on the GPU: the first level below the finest with at most this many unknowns per rank is gathered on
   one rank with the levels below it. A distributed level costs exchanges at each visit (the K-cycle visits level l up
   to 2^(l-1) times); a gathered one leaves the other GPUs idle and costs the move to rank 0 at each visit. Through host
   memory (MPI's gather collective) that move is dear: 3D, 1e8 unknowns on 4 H200, gathered at 195K unknowns the solve
   took 0.73 s, at 1.56M 1.06 s. With device buffers point to point (-pc_auxamg_exchange_device) it is cheap and an
   earlier gather pays: 1e8 unknowns on 2 H200, 65536 per rank against 1M per rank: 2D 0.963 s against 0.801 s, 3D
   0.792 s against 0.734 s (bench/history/2026-11-28.md) */
#define AUXAMG_GATHER_PER_RANK        65536
#define AUXAMG_GATHER_PER_RANK_DEVICE 1048576

const char *const PCAuxAMGCycles[] = {"v", "k", "PCAuxAMGCycle", "PC_AUXAMG_CYCLE_", NULL};

typedef struct {
  PetscInt       nlevels;
  Mat            A[AUXAMG_MAX_LEVELS], P[AUXAMG_MAX_LEVELS]; /* A[0] is the PC's Pmat (referenced); P[l]: level l+1 -> l */
  Vec            r[AUXAMG_MAX_LEVELS], rc[AUXAMG_MAX_LEVELS], e[AUXAMG_MAX_LEVELS];
  Vec            c1[AUXAMG_MAX_LEVELS], v1[AUXAMG_MAX_LEVELS], r1[AUXAMG_MAX_LEVELS], c2[AUXAMG_MAX_LEVELS], v2[AUXAMG_MAX_LEVELS];
  KSP            coarse;
  PetscReal     *coords; /* PCSetCoordinates(): cdim values per local row */
  PetscInt       cdim, ncoords;
  PetscInt       maxlevels, coarsesize; /* coarsesize PETSC_DETERMINE: AUXAMG_COARSE_HOST or AUXAMG_COARSE_GPU by the path */
  PetscReal      ppc, ktol;
  PCAuxAMGCycle  cycle;
  PetscInt       M;             /* auxiliary cells per direction of level 1 */
  PetscBool      checkgalerkin; /* -pc_auxamg_check_galerkin: compare each coarse operator with MatPtAP() */
  PetscLogDouble opcomplexity;
  PetscInt       nrows[AUXAMG_MAX_LEVELS]; /* global rows of each level */
  PetscLogDouble nnz[AUXAMG_MAX_LEVELS];   /* stored entries of each level's operator (ELL: the cells that exist) */
  /* the tree-colored Gauss-Seidel (-pc_auxamg_smoother colored), per smoothed level: ncolors[l] = (radius[l] + 1)^d
     colors; the local rows ordered by color, then by cell (their aggregate), then by row; cellstart: each cell's first
     position in order; colorstart: each color's first cell; the off-rank columns' values through a scatter */
  PetscInt   smoother; /* -pc_auxamg_smoother: PC_AUXAMG_SMOOTHER_LOCAL, _COLORED or _AUTO */
  PetscInt   radius[AUXAMG_MAX_LEVELS], ncolors[AUXAMG_MAX_LEVELS];
  PetscInt  *order[AUXAMG_MAX_LEVELS], *cellstart[AUXAMG_MAX_LEVELS], *colorstart[AUXAMG_MAX_LEVELS];
  VecScatter ghostscatter[AUXAMG_MAX_LEVELS];
  Vec        ghost[AUXAMG_MAX_LEVELS];
  /* the GPU path: level l's operator dA[l] (l = 0: A's CSR; else ELL in dcol, dval), its inverse diagonal, the
     aggregation of level l into level l + 1 (dagg[l], colors in colorstart[l]); A[l] is NULL for 0 < l < nlevels - 1,
     the coarsest is a host AIJ matrix (its LU on the host through hb, hx) */
  PetscBool       usegpu, gpu;
  AuxAMGDeviceMat dA[AUXAMG_MAX_LEVELS];
  AuxAMGDeviceAgg dagg[AUXAMG_MAX_LEVELS];
  PetscInt       *dcol[AUXAMG_MAX_LEVELS];
  PetscScalar    *dval[AUXAMG_MAX_LEVELS], *didiag[AUXAMG_MAX_LEVELS];
  PetscScalar    *djac[AUXAMG_MAX_LEVELS];   /* GPU path: the damped Jacobi's weights of the levels 1 .. L - 2 (-pc_auxamg_coarse_smoother jacobi) */
  Vec             jac[AUXAMG_MAX_LEVELS];    /* host path: the same */
  PetscInt        maxlen[AUXAMG_MAX_LEVELS]; /* the longest row's stored entries (sets the lanes per cell of the smoother) */
  Vec             hb, hx;
  /* the coarse levels' cycle on the device (a coarsest level of at most AUXAMG_DENSE_MAX unknowns, by its inverse), one
     CUDA graph unless -pc_auxamg_gpu_graph 0; NULL: each level's operations from the host, the coarsest LU on the host */
  AuxAMGCycle dcycle;
  PetscBool   graph;
  PetscBool   cjacobi;   /* -pc_auxamg_coarse_smoother jacobi: the levels below the finest smoothed by one damped Jacobi sweep */
  PetscInt    tree;      /* -pc_auxamg_tree: PC_AUXAMG_TREE_UNIFORM, _ADAPTIVE or _AUTO */
  PetscBool   adaptive;  /* this set-up's aggregates from the region tree refined where the points cluster (PCAuxAMGSetUpTree()) */
  PetscInt    fullest;   /* -pc_auxamg_tree auto: the most points in one cell of the uniform grid (0: not counted) */
  PetscReal   fullmax;   /* -pc_auxamg_tree auto: the adaptive tree where fullest is above this */
  PetscInt    cdimsetup; /* the coordinates' dimension of the last set-up */
  /* several ranks on the GPU, or the adaptive tree there (AIJCUSPARSE, -pc_auxamg_gpu): the levels 0 .. nlevels - 1
     are AIJCUSPARSE matrices (set up on the host), distributed, smoothed on the device: the Gauss-Seidel's colors by the diagonal block's CSR (dA[l])
     and the off-rank block's (dAo[l], its columns the ghost vector's), in the colored order (dagg[l]: d_perm the rows,
     d_start the cells' first rows, d_cells the identity); the levels below, where a level has at most gathersize
     unknowns, are gathered on rank 0 into sub, a PCAUXAMG on one rank (the GPU path, its cycle on the device) */
  PetscBool       dist;
  PetscInt        gathersize; /* PETSC_DETERMINE: AUXAMG_GATHER_PER_RANK times the ranks */
  AuxAMGDeviceMat dAo[AUXAMG_MAX_LEVELS];
  VecScatter     *cscatter[AUXAMG_MAX_LEVELS]; /* per color: the ghosts whose rows (on their rank) are of that color */
  PC              sub;
  VecScatter      subscatter;
  Vec             subb, subx;
  /* sub's finest level as its parent made it: its rows' tree keys (skn of them, grid skM per direction, dimension
     skcdim) instead of coordinates, and that level's number there (levelshift: sub's level l is the parent's l + shift) */
  PetscInt64 *skey;
  PetscInt    skn, skM, skcdim, levelshift;
  /* -pc_auxamg_exchange_device: the star forests of the levels' exchanges (ghosts, colors, products of the operators and
     transfers this PC made, the gather) hand device buffers to MPI after a probe (src/sys/vpdevicempi.c); nxdevice of
     nxsf do */
  PetscBool exchdevice;
  PetscInt  nxdevice, nxsf;
} PC_AuxAMG;

static inline PetscInt PCAuxAMGCoarseSize(const PC_AuxAMG *j)
{
  return j->coarsesize != PETSC_DETERMINE ? j->coarsesize : (j->gpu || j->dist ? AUXAMG_COARSE_GPU : AUXAMG_COARSE_HOST);
}

/* level l is smoothed by the damped Jacobi (-pc_auxamg_coarse_smoother jacobi: the levels below the finest), else by the
   Gauss-Seidel of -pc_auxamg_smoother, whose colors the set-up then makes */
static inline PetscBool PCAuxAMGLevelJacobi(const PC_AuxAMG *j, PetscInt l)
{
  return (PetscBool)(l + j->levelshift > 0 && j->cjacobi);
}

/* the Gauss-Seidel colored by the tree (-pc_auxamg_smoother colored): its colors are the parity classes of a uniform
   grid's cells, or on the adaptive tree, whose cells vary in size, a greedy coloring of the cells' graph. auto (the
   default): colored, except on the adaptive tree on the host, where MatSOR()'s sweeps take as many iterations (within
   one) in 2.5-5x less time, the greedy colors scattering each color's cells (measured on graded 2D and 3D meshes) */
static inline PetscBool PCAuxAMGColored(const PC_AuxAMG *j)
{
  return (PetscBool)(j->smoother == PC_AUXAMG_SMOOTHER_COLORED || (j->smoother == PC_AUXAMG_SMOOTHER_AUTO && (!j->adaptive || j->dist)));
}

static PetscErrorCode PCSetCoordinates_AuxAMG(PC pc, PetscInt dim, PetscInt n, PetscReal coords[])
{
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCAUXAMG: coordinates of dimension %" PetscInt_FMT "; give 1, 2 or 3", dim);
  PetscCall(PetscFree(j->coords));
  PetscCall(PetscMalloc1(dim * n, &j->coords));
  PetscCall(PetscArraycpy(j->coords, coords, dim * n));
  j->cdim    = dim;
  j->ncoords = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coordinates of dm's nodes, or NULL (a DMQBOX makes them on first use and keeps them) */
static PetscErrorCode PCAuxAMGDMCoordinates(DM dm, Vec *cvec)
{
  PetscBool qbox;

  PetscFunctionBegin;
  *cvec = NULL;
  if (!dm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMQBOX, &qbox));
  if (qbox) PetscCall(DMQBoxSetUpCoordinates_Private(dm));
  PetscCall(DMGetCoordinates(dm, cvec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this rank's coordinates (cdim per local row): PCSetCoordinates(), else those of the PC's (the KSP's) DM, else those
   of the matrix's DM (MatGetDM(): a matrix of DMCreateMatrix(), as an unmodified DMDA program that uses PCGAMG has);
   checked */
static PetscErrorCode PCAuxAMGGetCoordinates(PC pc, PetscInt nlocal, PetscInt *cdim, const PetscReal **x, Vec *cvec)
{
  PC_AuxAMG *j    = (PC_AuxAMG *)pc->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);
  PetscInt   n;
  PetscBool  bad = PETSC_FALSE;

  PetscFunctionBegin;
  *cvec = NULL;
  if (j->coords) {
    PetscCheck(j->ncoords == nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCAUXAMG: PCSetCoordinates() gave %" PetscInt_FMT " points on this rank, but the matrix has %" PetscInt_FMT " local rows: give one point per row", j->ncoords, nlocal);
    *cdim = j->cdim;
    *x    = j->coords;
  } else {
    DM dm = NULL;
    PetscCall(PCGetDM(pc, &dm));
    PetscCall(PCAuxAMGDMCoordinates(dm, cvec));
    if (!*cvec && pc->pmat) {
      PetscCall(MatGetDM(pc->pmat, &dm));
      PetscCall(PCAuxAMGDMCoordinates(dm, cvec));
    }
    PetscCheck(*cvec, comm, PETSC_ERR_ARG_WRONGSTATE,
               "PCAUXAMG needs the coordinates of the matrix's rows: call PCSetCoordinates() (as for PCGAMG), or give the KSP or the matrix a DM with coordinates (DMDASetUniformCoordinates(), DMSetCoordinates())");
    PetscCall(DMGetCoordinateDim(dm, cdim));
    PetscCall(VecGetLocalSize(*cvec, &n));
    PetscCheck(n == *cdim * nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "PCAUXAMG: the DM's coordinates have %" PetscInt_FMT " values on this rank, the matrix %" PetscInt_FMT " local rows of dimension %" PetscInt_FMT ": give coordinates with PCSetCoordinates()", n, nlocal, *cdim);
    PetscCall(VecGetArrayRead(*cvec, x));
  }
  for (PetscInt i = 0; i < *cdim * nlocal; i++)
    if (PetscIsInfOrNanReal((*x)[i])) bad = PETSC_TRUE;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_C_BOOL, MPI_LOR, comm));
  PetscCheck(!bad, comm, PETSC_ERR_FP, "PCAUXAMG: a coordinate is not finite (NaN or Inf)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt PCAuxAMGFind(PetscInt n, const PetscInt64 *a, PetscInt64 key)
{
  PetscInt lo = 0, hi = n - 1;
  while (lo <= hi) {
    PetscInt mid = lo + (hi - lo) / 2;
    if (a[mid] == key) return mid;
    if (a[mid] < key)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* the aggregates of n unknowns with tree-cell keys: agg[i] = the index of key[i] among the sorted distinct keys, which
   are returned in ukeys (nc of them) */
static PetscErrorCode PCAuxAMGAggregate(PetscInt n, const PetscInt64 *key, PetscInt *agg, PetscInt *nc, PetscInt64 **ukeys)
{
  PetscInt m = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(n, 1), ukeys));
  PetscCall(PetscArraycpy(*ukeys, key, n));
  PetscCall(PetscSortInt64(n, *ukeys));
  for (PetscInt i = 0; i < n; i++)
    if (!m || (*ukeys)[m - 1] != (*ukeys)[i]) (*ukeys)[m++] = (*ukeys)[i];
  for (PetscInt i = 0, p = 0; i < n; i++) { /* consecutive rows are mostly in one cell or the next: those first */
    if (p + 1 < m && (*ukeys)[p + 1] == key[i])
      p++;
    else if ((*ukeys)[p] != key[i])
      p = PCAuxAMGFind(m, *ukeys, key[i]);
    agg[i] = p;
  }
  *nc = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the keys of tree cells of a grid of M cells per direction become those of their parents (grid ceil(M / 2): where M
   is odd, the last cells of a direction have one child in it) */
static PetscErrorCode PCAuxAMGParent(PetscInt n, PetscInt cdim, PetscInt64 *key, PetscInt *M)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt64 k = key[i], p = 0, f = 1;
    for (PetscInt d = 0; d < cdim; d++) {
      p += ((k % *M) / 2) * f;
      k /= *M;
      f *= (*M + 1) / 2;
    }
    key[i] = p;
  }
  *M = (*M + 1) / 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ac = P^T A P for the 0/1 aggregation P (agg: the local aggregate of each local row; the coarse unknowns numbered
   in the ranks' order), summed from A's local blocks: coarse row c gathers the entries of the fine rows of aggregate c
   (rows grouped by a counting sort), each column mapped to its aggregate (off-rank columns' aggregates through a star
   forest on garray), entries of one coarse column merged (a marker per local coarse column, a search among the few
   off-rank ones), then the row sorted; the CSR is handed to the matrix at once (no MatSetValues() per fine row) */
static PetscErrorCode PCAuxAMGGalerkin(Mat A, const PetscInt *agg, PetscInt nc, Mat *Ac)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ad = A, Ao = NULL;
  const PetscInt    *ia, *ja, *ib = NULL, *jb = NULL, *garray = NULL;
  const PetscScalar *aa, *ab = NULL;
  PetscInt           rstart, rend, n, nr, nb, cstart = 0, ng = 0, *gagg = NULL, *rows, *first, *rp, *cc, *mark, m = 0;
  PetscScalar       *cv;
  PetscBool          mpi, done;
  PetscLogDouble     nnz;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_AuxAMGGalerkin, A, 0, 0, 0));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  n = rend - rstart;
  PetscCallMPI(MPI_Exscan(&nc, &cstart, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done && nr == n, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: the coarse operators need an AIJ matrix");
  PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
  nnz = ia[n];
  if (Ao) { /* the off-rank columns' aggregates, by their global number */
    PetscSF   sf;
    PetscInt *aggg;
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &ib, &jb, &done));
    PetscCheck(done && nb == n, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: the coarse operators need an AIJ matrix");
    PetscCall(MatSeqAIJGetArrayRead(Ao, &ab));
    PetscCall(MatGetSize(Ao, NULL, &ng));
    nnz += ib[n];
    PetscCall(PetscMalloc1(PetscMax(n, 1), &aggg));
    PetscCall(PetscMalloc1(PetscMax(ng, 1), &gagg));
    for (PetscInt i = 0; i < n; i++) aggg[i] = cstart + agg[i];
    PetscCall(PetscSFCreate(comm, &sf));
    PetscCall(PetscSFSetGraphLayout(sf, A->rmap, ng, NULL, PETSC_COPY_VALUES, garray));
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, aggg, gagg, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, aggg, gagg, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscFree(aggg));
  }
  /* the fine rows by aggregate */
  PetscCall(PetscMalloc3(nc + 1, &first, PetscMax(n, 1), &rows, PetscMax(nc, 1), &mark));
  PetscCall(PetscArrayzero(first, nc + 1));
  for (PetscInt i = 0; i < n; i++) first[agg[i] + 1]++;
  for (PetscInt c = 0; c < nc; c++) first[c + 1] += first[c];
  for (PetscInt i = 0; i < n; i++) rows[first[agg[i]]++] = i;
  for (PetscInt c = nc; c > 0; c--) first[c] = first[c - 1];
  first[0] = 0;
  for (PetscInt c = 0; c < nc; c++) mark[c] = -1;
  PetscCall(PetscMalloc1(nc + 1, &rp)); /* separately: on one rank they become the matrix's */
  PetscCall(PetscMalloc1(PetscMax((PetscInt)nnz, 1), &cc));
  PetscCall(PetscMalloc1(PetscMax((PetscInt)nnz, 1), &cv));
  rp[0] = 0;
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt s = m;
    for (PetscInt q = first[c]; q < first[c + 1]; q++) {
      const PetscInt i = rows[q];
      for (PetscInt e = ia[i]; e < ia[i + 1]; e++) {
        const PetscInt J = agg[ja[e]];
        if (mark[J] < 0) {
          mark[J] = m;
          cc[m]   = cstart + J;
          cv[m++] = aa[e];
        } else
          cv[mark[J]] += aa[e];
      }
      if (Ao)
        for (PetscInt e = ib[i]; e < ib[i + 1]; e++) {
          const PetscInt G = gagg[jb[e]];
          PetscInt       p = s;
          while (p < m && cc[p] != G) p++;
          if (p < m)
            cv[p] += ab[e];
          else {
            cc[m]   = G;
            cv[m++] = ab[e];
          }
        }
    }
    for (PetscInt p = s; p < m; p++)
      if (cc[p] >= cstart && cc[p] < cstart + nc) mark[cc[p] - cstart] = -1;
    PetscCall(PetscSortIntWithScalarArray(m - s, cc + s, cv + s));
    rp[c + 1] = m;
  }
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  if (Ao) {
    PetscCall(MatSeqAIJRestoreArrayRead(Ao, &ab));
    PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &ib, &jb, &done));
    PetscCall(PetscFree(gagg));
  }
  PetscCall(PetscLogFlops(nnz)); /* one addition per entry of A */
#if defined(AUXAMG_MPIAIJ)
  if (!Ao && !mpi) { /* one rank: the CSR arrays, cut to their entries, become the matrix's (MatSeqAIJSetPreallocationCSR()
                        would insert them row by row; measured: 4M unknowns, 2D, the tree's set-up, bench/history/2026-11-28.md) */
    PetscCall(PetscRealloc(sizeof(PetscInt) * PetscMax(m, 1), &cc));
    PetscCall(PetscRealloc(sizeof(PetscScalar) * PetscMax(m, 1), &cv));
    PetscCall(MatCreateSeqAIJWithArrays(comm, nc, nc, rp, cc, cv, Ac));
    ((Mat_SeqAIJ *)(*Ac)->data)->free_a  = PETSC_TRUE; /* freed with the matrix */
    ((Mat_SeqAIJ *)(*Ac)->data)->free_ij = PETSC_TRUE;
  } else
#endif
  {
    PetscCall(MatCreate(comm, Ac));
    PetscCall(MatSetSizes(*Ac, nc, nc, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(*Ac, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(*Ac, rp, cc, cv)); /* copies, assembles */
    PetscCall(MatMPIAIJSetPreallocationCSR(*Ac, rp, cc, cv));
    PetscCall(PetscFree(rp));
    PetscCall(PetscFree(cc));
    PetscCall(PetscFree(cv));
  }
  PetscCall(PetscFree3(first, rows, mark));
  PetscCall(PetscLogEventEnd(VPATCH_AuxAMGGalerkin, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest offset, in tree cells of the grid M, between the cells (keys ukeys[agg[.]]) of two coupled local rows of
   level l, over all ranks (the off-rank columns are read from a copy taken before each color: they do not count) */
static PetscErrorCode PCAuxAMGRadius(PC_AuxAMG *j, PetscInt l, PetscInt cdim, PetscInt M, const PetscInt *agg, PetscInt nc, const PetscInt64 *ukeys, PetscInt *radius)
{
  Mat             Ad = j->A[l];
  const PetscInt *ia, *ja;
  PetscInt        n, r = 0, *cc;
  PetscBool       done, mpi;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(nc * cdim, 1), &cc)); /* each cell's coordinates (M <= 2^20 per direction) */
  for (PetscInt a = 0; a < nc; a++) {
    PetscInt64 k = ukeys[a];
    for (PetscInt d = 0; d < cdim; d++) {
      cc[a * cdim + d] = (PetscInt)(k % M);
      k /= M;
    }
  }
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)j->A[l], MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(j->A[l], &Ad, NULL, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: the colored Gauss-Seidel needs an AIJ matrix");
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt *ci = cc + agg[i] * cdim;
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) {
      const PetscInt *cj = cc + agg[ja[k]] * cdim;
      for (PetscInt d = 0; d < cdim; d++) r = PetscMax(r, PetscAbsInt(ci[d] - cj[d]));
    }
  }
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(PetscFree(cc));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &r, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)j->A[l])));
  *radius = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAuxAMGColorOrder(PC_AuxAMG *, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscInt *, PetscInt);

/* the tree-colored Gauss-Seidel's ordering of level l: cells are the aggregates (the unknowns of level l + 1), colored
   by their tree cell's coordinates (ukeys, grid M per direction) modulo radius + 1, so that two cells of one color
   never couple */
static PetscErrorCode PCAuxAMGColoring(PC_AuxAMG *j, PetscInt l, PetscInt cdim, PetscInt M, PetscInt nf, const PetscInt *agg, PetscInt nc, const PetscInt64 *ukeys)
{
  PetscInt nco = 1, *ccolor, r = 0;

  PetscFunctionBegin;
  PetscCall(PCAuxAMGRadius(j, l, cdim, M, agg, nc, ukeys, &r));
  for (PetscInt d = 0; d < cdim; d++) nco *= r + 1;
  j->radius[l] = r;
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &ccolor));
  for (PetscInt a = 0; a < nc; a++) {
    PetscInt64 k = ukeys[a];
    PetscInt   f = 1;
    ccolor[a]    = 0;
    for (PetscInt d = 0; d < cdim; d++) {
      ccolor[a] += (PetscInt)((k % M) % (r + 1)) * f;
      f *= r + 1;
      k /= M;
    }
  }
  PetscCall(PCAuxAMGColorOrder(j, l, nf, agg, nc, ccolor, nco));
  PetscCall(PetscFree(ccolor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Gauss-Seidel's colors of the adaptive tree's level l, whose cells differ in size (no parity classes): a greedy
   distance-1 coloring (MatColoring) of the graph of A[l + 1], whose rows are the cells and couple where two cells'
   rows do, so two cells of a color never couple (on several ranks too: the coloring is parallel) */
static PetscErrorCode PCAuxAMGColoringGraph(PC_AuxAMG *j, PetscInt l, PetscInt nf, const PetscInt *agg, PetscInt nc)
{
  MatColoring            mc;
  ISColoring             isc;
  const ISColoringValue *colors;
  PetscInt               n, nco, *ccolor;
  Mat                    C;

  PetscFunctionBegin;
  PetscCall(MatConvert(j->A[l + 1], MATAIJ, MAT_INITIAL_MATRIX, &C)); /* a host copy (the GPU path's levels are AIJCUSPARSE) */
  PetscCall(MatColoringCreate(C, &mc));
  PetscCall(MatColoringSetType(mc, MATCOLORINGGREEDY));
  PetscCall(MatColoringSetDistance(mc, 1));
  PetscCall(MatColoringApply(mc, &isc));
  PetscCall(MatColoringDestroy(&mc));
  PetscCall(MatDestroy(&C));
  PetscCall(ISColoringGetColors(isc, &n, &nco, &colors));
  PetscCheck(n == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAUXAMG: %" PetscInt_FMT " colors for %" PetscInt_FMT " cells", n, nc);
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &ccolor));
  for (PetscInt a = 0; a < nc; a++) ccolor[a] = (PetscInt)colors[a];
  PetscCall(ISColoringDestroy(&isc));
  j->radius[l] = -1; /* not from the grid */
  PetscCall(PCAuxAMGColorOrder(j, l, nf, agg, nc, ccolor, nco));
  PetscCall(PetscFree(ccolor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* level l's rows in the Gauss-Seidel's order from a color per cell (ccolor, nco colors): by color, then by cell, then
   by row; and the off-rank columns' scatter */
static PetscErrorCode PCAuxAMGColorOrder(PC_AuxAMG *j, PetscInt l, PetscInt nf, const PetscInt *agg, PetscInt nc, const PetscInt *ccolor, PetscInt nco)
{
  PetscInt *cnt, *corder, *pos;
  Mat       Ao = NULL;
  PetscBool mpi;

  PetscFunctionBegin;
  j->ncolors[l] = nco;
  PetscCall(PetscMalloc3(PetscMax(nf, 1), &j->order[l], nc + 1, &j->cellstart[l], nco + 1, &j->colorstart[l]));
  PetscCall(PetscMalloc3(nco + 1, &cnt, PetscMax(nc, 1), &corder, PetscMax(nc, 1) + 1, &pos));
  /* the cells by color (then by cell number) */
  PetscCall(PetscArrayzero(cnt, nco + 1));
  for (PetscInt a = 0; a < nc; a++) cnt[ccolor[a] + 1]++;
  for (PetscInt c = 0; c < nco; c++) cnt[c + 1] += cnt[c];
  PetscCall(PetscArraycpy(j->colorstart[l], cnt, nco + 1));
  for (PetscInt a = 0; a < nc; a++) corder[cnt[ccolor[a]]++] = a; /* corder[position] = cell */
  /* the rows by cell in that order */
  PetscCall(PetscArrayzero(pos, nc + 1));
  for (PetscInt i = 0; i < nf; i++) pos[agg[i] + 1]++; /* rows per cell, indexed by the cell */
  j->cellstart[l][0] = 0;
  for (PetscInt t = 0; t < nc; t++) j->cellstart[l][t + 1] = j->cellstart[l][t] + pos[corder[t] + 1];
  for (PetscInt t = 0; t < nc; t++) pos[corder[t]] = j->cellstart[l][t]; /* the next free place of each cell */
  for (PetscInt i = 0; i < nf; i++) j->order[l][pos[agg[i]]++] = i;
  PetscCall(PetscFree3(cnt, corder, pos));
  /* the values of the off-rank columns */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)j->A[l], MATMPIAIJ, &mpi));
  if (mpi) {
    const PetscInt *garray;
    PetscInt        ng;
    IS              is;
    Vec             x;
    PetscCall(MatMPIAIJGetSeqAIJ(j->A[l], NULL, &Ao, &garray));
    PetscCall(MatGetSize(Ao, NULL, &ng));
    if (j->dist) {
#if defined(PETSC_HAVE_CUDA)
      PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, ng, &j->ghost[l]));
#endif
    } else
      PetscCall(VecCreateSeq(PETSC_COMM_SELF, ng, &j->ghost[l]));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ng, garray, PETSC_COPY_VALUES, &is));
    PetscCall(MatCreateVecs(j->A[l], &x, NULL));
    PetscCall(VecScatterCreate(x, is, j->ghost[l], NULL, &j->ghostscatter[l]));
    PetscCall(VecDestroy(&x));
    PetscCall(ISDestroy(&is));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one tree-colored Gauss-Seidel sweep on level l (forward: colors, cells and rows in order; else reversed), in place:
   the cells of a color do not couple, so they could run in any order (on the GPU, in parallel); the off-rank values
   are exchanged before each color */
static PetscErrorCode PCAuxAMGColoredGS(PC_AuxAMG *j, PetscInt l, Vec b, Vec x, PetscBool forward, PetscBool zero)
{
  Mat                Ad = j->A[l], Ao = NULL;
  const PetscInt    *ia, *ja, *ib = NULL, *jb = NULL;
  const PetscScalar *aa, *ab = NULL, *ba, *ga = NULL;
  PetscScalar       *xa;
  PetscInt           n, nb;
  PetscBool          done, mpi;
  PetscLogDouble     nnz = 0;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)j->A[l], MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(j->A[l], &Ad, &Ao, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: the colored Gauss-Seidel needs an AIJ matrix");
  PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
  if (Ao) {
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &ib, &jb, &done));
    PetscCall(MatSeqAIJGetArrayRead(Ao, &ab));
  }
  if (zero) PetscCall(VecSet(x, 0.0));
  for (PetscInt ci = 0; ci < j->ncolors[l]; ci++) {
    const PetscInt c = forward ? ci : j->ncolors[l] - 1 - ci;
    if (Ao) {
      PetscCall(VecScatterBegin(j->ghostscatter[l], x, j->ghost[l], INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(j->ghostscatter[l], x, j->ghost[l], INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecGetArrayRead(j->ghost[l], &ga));
    }
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArray(x, &xa));
    for (PetscInt t = j->colorstart[l][c]; t < j->colorstart[l][c + 1]; t++) {
      for (PetscInt qi = j->cellstart[l][t]; qi < j->cellstart[l][t + 1]; qi++) {
        const PetscInt q = forward ? qi : j->cellstart[l][t] + j->cellstart[l][t + 1] - 1 - qi, i = j->order[l][q];
        PetscScalar    s = ba[i], d = 0;
        for (PetscInt k = ia[i]; k < ia[i + 1]; k++) {
          if (ja[k] == i)
            d += aa[k];
          else
            s -= aa[k] * xa[ja[k]];
        }
        if (Ao)
          for (PetscInt k = ib[i]; k < ib[i + 1]; k++) s -= ab[k] * ga[jb[k]];
        PetscCheck(d != 0.0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "PCAUXAMG: zero diagonal in local row %" PetscInt_FMT " of level %" PetscInt_FMT, i, l);
        xa[i] = s / d;
        nnz += (ia[i + 1] - ia[i]) + (Ao ? ib[i + 1] - ib[i] : 0);
      }
    }
    PetscCall(VecRestoreArray(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
    if (Ao) PetscCall(VecRestoreArrayRead(j->ghost[l], &ga));
  }
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (Ao) {
    PetscCall(MatSeqAIJRestoreArrayRead(Ao, &ab));
    PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &ib, &jb, &done));
  }
  PetscCall(PetscLogFlops(2 * nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the star forest of B's products (its off-rank columns' values), NULL unless B is an MPIAIJ matrix and PETSc's source
   tree is at hand */
static PetscErrorCode PCAuxAMGMatSF(Mat B, PetscSF *sf)
{
  PetscBool mpi = PETSC_FALSE;

  PetscFunctionBegin;
  *sf = NULL;
  if (B) PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATMPIAIJ, &mpi));
#if defined(AUXAMG_MPIAIJ)
  if (mpi) *sf = ((Mat_MPIAIJ *)B->data)->Mvctx;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* before this PC destroys a matrix it made: its star forest's device buffers back to the pool (src/sys/vpdevicempi.c),
   unless the matrix lives on elsewhere */
static PetscErrorCode PCAuxAMGMatRelease(Mat B)
{
  PetscSF sf;

  PetscFunctionBegin;
  if (!B || ((PetscObject)B)->refct > 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCAuxAMGMatSF(B, &sf));
  PetscCall(VPSFReleaseDeviceBuffers_Private(sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one of the levels' star forests (NULL: none) to device buffers, counted; their roots and leaves are vectors' arrays */
static PetscErrorCode PCAuxAMGSFDevice(PC_AuxAMG *j, PetscSF sf)
{
  PetscBool device;

  PetscFunctionBegin;
  if (!sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPSFDeviceMPI_Private(sf, PETSC_TRUE, &device));
  j->nxsf++;
  j->nxdevice += device;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_auxamg_exchange_device: each star forest of the levels' exchanges hands device buffers to MPI once the probe
   passed (collective: every rank has the same star forests, made in the same order). The user's matrix A[0] keeps its
   own (its products outside this PC too): level 0's residual and the outer method's products stay as PETSc moves them */
static PetscErrorCode PCAuxAMGExchangeDevice(PC pc)
{
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;
  PetscSF    sf;

  PetscFunctionBegin;
  j->nxdevice = j->nxsf = 0;
  if (!j->dist || !j->exchdevice) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt l = 0; l < j->nlevels; l++) {
    PetscCall(PCAuxAMGSFDevice(j, j->ghostscatter[l]));
    if (l > 0) { /* A[0] is the user's */
      PetscCall(PCAuxAMGMatSF(j->A[l], &sf));
      PetscCall(PCAuxAMGSFDevice(j, sf));
    }
    PetscCall(PCAuxAMGMatSF(j->P[l], &sf));
    PetscCall(PCAuxAMGSFDevice(j, sf));
    for (PetscInt c = 0; j->cscatter[l] && c < j->ncolors[l]; c++) PetscCall(PCAuxAMGSFDevice(j, j->cscatter[l][c]));
  }
  PetscCall(PCAuxAMGSFDevice(j, j->subscatter));
  PetscCall(PetscInfo(pc, "-pc_auxamg_exchange_device: %" PetscInt_FMT " of %" PetscInt_FMT " star forests pass device buffers to MPI\n", j->nxdevice, j->nxsf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_AuxAMG(PC pc)
{
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;

  PetscFunctionBegin;
  for (PetscInt l = 0; l < AUXAMG_MAX_LEVELS; l++) {
    if (l > 0) PetscCall(PCAuxAMGMatRelease(j->A[l])); /* A[0] is the user's: its star forest was left as it was */
    PetscCall(PCAuxAMGMatRelease(j->P[l]));
    PetscCall(MatDestroy(&j->A[l]));
    PetscCall(MatDestroy(&j->P[l]));
    PetscCall(VecDestroy(&j->r[l]));
    PetscCall(VecDestroy(&j->rc[l]));
    PetscCall(VecDestroy(&j->e[l]));
    PetscCall(VecDestroy(&j->c1[l]));
    PetscCall(VecDestroy(&j->v1[l]));
    PetscCall(VecDestroy(&j->r1[l]));
    PetscCall(VecDestroy(&j->c2[l]));
    PetscCall(VecDestroy(&j->v2[l]));
    PetscCall(VecDestroy(&j->jac[l]));
  }
  for (PetscInt l = 0; l < AUXAMG_MAX_LEVELS; l++) {
    if (j->order[l])
      PetscCall(PetscFree3(j->order[l], j->cellstart[l], j->colorstart[l]));
    else
      PetscCall(PetscFree(j->colorstart[l])); /* the GPU path's colors alone */
    if (j->cscatter[l])
      for (PetscInt c = 0; c < j->ncolors[l]; c++) PetscCall(VPSFDestroy_Private(&j->cscatter[l][c]));
    PetscCall(PetscFree(j->cscatter[l]));
    j->ncolors[l] = 0;
    PetscCall(VPSFDestroy_Private(&j->ghostscatter[l]));
    PetscCall(VecDestroy(&j->ghost[l]));
#if defined(PETSC_HAVE_CUDA)
    if (j->gpu || j->dist) {
      AuxAMGDeviceAgg *g = &j->dagg[l];
      PetscCall(AuxAMGFree_CUDA(g->d_agg));
      PetscCall(AuxAMGFree_CUDA(g->d_perm));
      PetscCall(AuxAMGFree_CUDA(g->d_start));
      PetscCall(AuxAMGFree_CUDA(g->d_cells));
      PetscCall(AuxAMGFree_CUDA(g->d_ckey));
      PetscCall(AuxAMGFree_CUDA(j->dcol[l]));
      PetscCall(AuxAMGFree_CUDA(j->dval[l]));
      PetscCall(AuxAMGFree_CUDA(j->didiag[l]));
      PetscCall(AuxAMGFree_CUDA(j->djac[l]));
    }
#endif
    PetscCall(PetscMemzero(&j->dagg[l], sizeof(j->dagg[l])));
    PetscCall(PetscMemzero(&j->dA[l], sizeof(j->dA[l])));
    PetscCall(PetscMemzero(&j->dAo[l], sizeof(j->dAo[l])));
    j->dcol[l]   = NULL;
    j->dval[l]   = NULL;
    j->didiag[l] = NULL;
    j->djac[l]   = NULL;
  }
  PetscCall(VecDestroy(&j->hb));
  PetscCall(VecDestroy(&j->hx));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(AuxAMGCycleDestroy_CUDA(&j->dcycle));
#endif
  PetscCall(KSPDestroy(&j->coarse));
  PetscCall(PCDestroy(&j->sub));
  PetscCall(VPSFDestroy_Private(&j->subscatter));
  PetscCall(VecDestroy(&j->subb));
  PetscCall(VecDestroy(&j->subx));
  j->nlevels  = 0;
  j->gpu      = PETSC_FALSE;
  j->dist     = PETSC_FALSE;
  j->nxdevice = j->nxsf = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fails unless Ac equals P^T Af P computed by MatPtAP() (host matrices) */
static PetscErrorCode PCAuxAMGCompareGalerkin(PC pc, PetscInt l, Mat Af, Mat P, Mat Ac)
{
  Mat       C;
  PetscReal nd, na;

  PetscFunctionBegin;
  PetscCall(MatPtAP(Af, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &na));
  PetscCall(MatAXPY(C, -1.0, Ac, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nd));
  PetscCall(MatDestroy(&C));
  PetscCheck(nd <= 1e-12 * na, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCAUXAMG: the coarse operator of level %" PetscInt_FMT " differs from MatPtAP() by %g (relative)", l + 1, (double)(nd / na));
  PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": coarse operator equal to MatPtAP() (difference %g relative)\n", l + 1, (double)(nd / na)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* level l + 1 of the host path from the aggregation agg of level l's nf local rows into nc local aggregates (numbered
   on this rank; the global numbers follow the ranks' order): P[l] with one 1 per row and A[l + 1] = P^T A[l] P */
static PetscErrorCode PCAuxAMGAddLevel(PC pc, PetscInt l, PetscInt nf, PetscInt nc, const PetscInt *agg)
{
  PC_AuxAMG *j      = (PC_AuxAMG *)pc->data;
  MPI_Comm   comm   = PetscObjectComm((PetscObject)pc);
  PetscInt   cstart = 0, fstart;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Exscan(&nc, &cstart, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MatGetOwnershipRange(j->A[l], &fstart, NULL));
  {
    PetscInt    *pi, *pj;
    PetscScalar *pv;
    PetscCall(PetscMalloc3(nf + 1, &pi, PetscMax(nf, 1), &pj, PetscMax(nf, 1), &pv));
    for (PetscInt i = 0; i <= nf; i++) pi[i] = i;
    for (PetscInt i = 0; i < nf; i++) {
      pj[i] = cstart + agg[i];
      pv[i] = 1.0;
    }
    PetscCall(MatCreate(comm, &j->P[l]));
    PetscCall(MatSetSizes(j->P[l], nf, nc, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(j->P[l], MATAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(j->P[l], pi, pj, pv)); /* one 1 per row; copies, assembles */
    PetscCall(MatMPIAIJSetPreallocationCSR(j->P[l], pi, pj, pv));
    PetscCall(PetscFree3(pi, pj, pv));
  }
  PetscCall(PCAuxAMGGalerkin(j->A[l], agg, nc, &j->A[l + 1]));
  if (j->dist) { /* the solve's products and transfers on the device */
    PetscCall(MatConvert(j->P[l], MATAIJCUSPARSE, MAT_INPLACE_MATRIX, &j->P[l]));
    PetscCall(MatConvert(j->A[l + 1], MATAIJCUSPARSE, MAT_INPLACE_MATRIX, &j->A[l + 1]));
  }
  if (j->checkgalerkin) PetscCall(PCAuxAMGCompareGalerkin(pc, l, j->A[l], j->P[l], j->A[l + 1])); /* against PETSc's general sparse product */
  j->nlevels = l + 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each host level's global rows and stored entries */
static PetscErrorCode PCAuxAMGLevelSizes(PC_AuxAMG *j)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < j->nlevels; l++) {
    MatInfo info;
    PetscCall(MatGetSize(j->A[l], &j->nrows[l], NULL));
    PetscCall(MatGetInfo(j->A[l], MAT_GLOBAL_SUM, &info));
    j->nnz[l] = info.nz_used;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host path's levels from the finest level's keys (key, m of them; agg: room for m); on several ranks on the GPU
   (dist) the levels up to the first of at most gather unknowns below level 0. On return key holds the last level's
   keys (*nlast of them), *M its grid's cells per direction */
static PetscErrorCode PCAuxAMGSetUpHost(PC pc, PetscInt cdim, PetscInt *Mp, PetscInt m, PetscInt64 *key, PetscInt *agg, PetscInt gather, PetscInt *nlast)
{
  PC_AuxAMG  *j    = (PC_AuxAMG *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscInt    nf = m, M = *Mp;
  PetscInt64 *ukeys;

  PetscFunctionBegin;
  for (PetscInt l = 0; l + 1 < j->maxlevels && l + 1 < AUXAMG_MAX_LEVELS; l++) {
    PetscInt nc = 0, Nc = 0, Nf;
    PetscCall(MatGetSize(j->A[l], &Nf, NULL));
    if (Nf <= PCAuxAMGCoarseSize(j) || (j->dist && l > 0 && Nf <= gather)) break;
    if (l > 0) {
      if (M == 1) break;
      PetscCall(PCAuxAMGParent(nf, cdim, key, &M));
    }
    for (;;) {
      PetscCall(PCAuxAMGAggregate(nf, key, agg, &nc, &ukeys));
      PetscCallMPI(MPIU_Allreduce(&nc, &Nc, 1, MPIU_INT, MPI_SUM, comm));
      if ((PetscReal)Nc <= AUXAMG_COARSENING * (PetscReal)Nf || M == 1) break;
      PetscCall(PetscFree(ukeys));
      PetscCall(PCAuxAMGParent(nf, cdim, key, &M));
    }
    if ((PetscReal)Nc > AUXAMG_COARSENING * (PetscReal)Nf) { /* nothing left to coarsen */
      PetscCall(PetscFree(ukeys));
      break;
    }
    PetscCall(PCAuxAMGAddLevel(pc, l, nf, nc, agg));
    if (PCAuxAMGColored(j) && !PCAuxAMGLevelJacobi(j, l)) PetscCall(PCAuxAMGColoring(j, l, cdim, M, nf, agg, nc, ukeys)); /* the Jacobi needs no colors */
    for (PetscInt i = 0; i < nc; i++) key[i] = ukeys[i];                                                                  /* the next level's unknowns are the tree cells */
    PetscCall(PetscFree(ukeys));
    nf = nc;
  }
  PetscCall(PCAuxAMGLevelSizes(j));
  *Mp    = M;
  *nlast = nf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adaptive region tree (-pc_auxamg_tree adaptive; set up on the host). The points are sorted by their Morton
   code (B bits per direction over the root cell, the directions interleaved): a tree cell of depth t is the run of
   points whose codes share their first d t bits. The root cell is the smallest 2^t c h at least the bounding box's
   largest extent, h = (volume / N)^(1/d) the points' mean spacing (c: AuxAMGTreeSpacing()), so that a cell of a
   given size in h holds about as many points at any N and a refined mesh keeps the tree's proportions. With the root
   at the extent the cells' widths fell between the mesh's spacings at some N: bench_auxamg -dim 2 -grade 2, offset 0
   and 0.2, took 22 and 21 iterations at 1M and 4M but 32 and 29 at 10M, where level 0's cells of up to 2 points did
   not halve the unknowns and the retry coarsened by 4.3 instead of 2.1; now 23 and 22 at 10M (CPU, measured). The
   aggregates of a level are the largest tree cells that hold at most T finest points (cut from the root down: a cell
   with more is split into its up to 2^d children; a cell of depth B is a leaf whatever it holds), T =
   AUXAMG_TREE_POINTS on level 0, then g times the last level's, and g times more again where a level would not halve
   the unknowns (g: AuxAMGTreeGrowth()). A cell under one threshold stays under a larger one, so each level's
   aggregates are unions of the previous level's: P is piecewise constant and the coarse operator is summed from A's
   entries as on the uniform grid (PCAuxAMGGalerkin()). Where points cluster (a mesh graded toward a region) the
   cells there are small and elsewhere large, so every aggregate holds about as many points, which the uniform grid
   cannot give (ex5 -grade 2 -grade_offset 0, 289 to 263,169 unknowns: 17 -> 82 iterations on the uniform grid, 13 ->
   24 on this tree, 26 at 1.05M). */
/* level 0's largest aggregate (measured with g = 4: 2 gave 24-29 iterations on graded 2D meshes, 4 gave 32-33) */
#define AUXAMG_TREE_POINTS 2

/* the factor g by which a level's largest aggregate grows over the last level's, in points: 2 in 2D, 2^d else. A
   uniform region's cells hold 4^t points in 2D, so there g = 2 makes a level only every other step (a level must halve
   the unknowns), as g = 4 does; where the points cluster the counts vary, and g = 2 grades the aggregates finer. Measured
   (CPU, bench_auxamg -grade 2 -pc_auxamg_tree adaptive, iterations and operator complexity, g = 4 against g = 2): 2D
   offset 0 at 90K, 1M, 4M unknowns 26, 29 (1.37), 30 (1.37) against 20, 22 (1.65), 23 (1.65); offset 0.2 and
   quasi-uniform meshes the same iterations (quasi-uniform complexity 1.35 against 1.43). In 3D a smaller g makes more
   levels than it saves: offset 0.2 at 512K 21 (1.23) with g = 8, 18 (1.57) with g = 4, and a slower solve */
static inline PetscInt AuxAMGTreeGrowth(PetscInt cdim)
{
  return cdim == 2 ? 2 : (PetscInt)1 << cdim;
}

/* c: the root cell is 2^t c h, so that the cells of depth t are c times the points' mean spacing h wide. Measured on
   bench_auxamg -grade 2 with the tree: in 2D c = 1 (0.8 took 30 and 28 iterations at 1M, offsets 0 and 0.2, where 1
   takes 23 and 22); in 3D c = 0.8 (offset 0.2, one H200, iterations, set-up + solve s: 1M 22, 1.27 + 0.27 against 1's
   23, 1.94 + 0.24; 10M 24, 16.2 + 0.55 against 25, 20.1 + 0.91: with 1 level 0 coarsened by 5.1 instead of 4.1) */
static inline PetscReal AuxAMGTreeSpacing(PetscInt cdim)
{
  return cdim == 3 ? 0.8 : 1.0;
}

typedef struct {
  PetscInt64 code;
  PetscInt   row;
} AuxAMGPoint;

static int AuxAMGPointCompare(const void *a, const void *b)
{
  const PetscInt64 x = ((const AuxAMGPoint *)a)->code, y = ((const AuxAMGPoint *)b)->code;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* the cut of the tree into its largest cells of at most T points, counted over all ranks (each rank's points sorted by
   code in pt): level by level from the root, the open cells (more than T points) the same on every rank, each with
   this rank's run of points [lo, hi) (possibly empty); their children's points counted here and summed over the
   ranks. leaf[i]: this rank's number of the cut cell that holds sorted position i (in code order; a cell with points
   on several ranks is one aggregate on each), *nleaf of them */
static PetscErrorCode AuxAMGTreeCut(MPI_Comm comm, const AuxAMGPoint *pt, PetscInt m, int d, int B, PetscInt T, PetscInt *leaf, PetscInt *nleaf)
{
  const PetscInt nch   = (PetscInt)1 << d;
  PetscInt       nopen = 1, *open, *cnt, *start, total = m;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(m, 1), &start)); /* start[i]: a cut cell's run begins at sorted position i */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscMalloc1(2, &open));
  open[0] = 0;
  open[1] = m;
  if (total <= T || B == 0) {
    if (m) start[0] = 1;
    nopen = 0;
  }
  for (int t = 0; t < B && nopen > 0; t++) {
    const int        shift = d * (B - t - 1);
    const PetscInt64 mask  = ((PetscInt64)1 << d) - 1;
    PetscInt        *next, nnext = 0, *rng;
    PetscCall(PetscMalloc2(nopen * nch, &cnt, 2 * nopen * nch, &rng));
    for (PetscInt o = 0; o < nopen; o++) { /* the runs of this rank's points in the children of open cell o */
      PetscInt s = open[2 * o];
      for (PetscInt c = 0; c < nch; c++) {
        PetscInt e = s;
        while (e < open[2 * o + 1] && ((pt[e].code >> shift) & mask) == (PetscInt64)c) e++;
        rng[2 * (o * nch + c)]     = s;
        rng[2 * (o * nch + c) + 1] = e;
        cnt[o * nch + c]           = e - s;
        s                          = e;
      }
    }
    {
      PetscMPIInt n;
      PetscCall(PetscMPIIntCast(nopen * nch, &n)); /* an error, not a wrapped count, past MPI's int */
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, n, MPIU_INT, MPI_SUM, comm));
    }
    PetscCall(PetscMalloc1(2 * nopen * nch, &next));
    for (PetscInt k = 0; k < nopen * nch; k++) {
      if (!cnt[k]) continue;
      if (cnt[k] <= T || t + 1 == B) {
        if (rng[2 * k + 1] > rng[2 * k]) start[rng[2 * k]] = 1;
      } else {
        next[2 * nnext]     = rng[2 * k];
        next[2 * nnext + 1] = rng[2 * k + 1];
        nnext++;
      }
    }
    PetscCall(PetscFree2(cnt, rng));
    PetscCall(PetscFree(open));
    open  = next;
    nopen = nnext;
  }
  PetscCall(PetscFree(open));
  *nleaf = 0;
  for (PetscInt i = 0; i < m; i++) {
    if (start[i]) (*nleaf)++;
    leaf[i] = *nleaf - 1;
  }
  PetscCall(PetscFree(start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAuxAMGSetUpTree(PC pc, PetscInt cdim, PetscInt m, const PetscReal *x, const PetscReal *lo, const PetscReal *hi)
{
  PC_AuxAMG   *j    = (PC_AuxAMG *)pc->data;
  MPI_Comm     comm = PetscObjectComm((PetscObject)pc);
  const int    B    = cdim == 1 ? 60 : (cdim == 2 ? 30 : 20); /* d B <= 60 bits */
  PetscReal    ext  = 0;
  AuxAMGPoint *pt;
  PetscInt    *leaf, *first, *agg, nf = m, T = AUXAMG_TREE_POINTS, M;

  PetscFunctionBegin;
  PetscCall(MatGetSize(j->A[0], &M, NULL));
  for (PetscInt d = 0; d < cdim; d++) ext = PetscMax(ext, hi[d] - lo[d]);
  if (ext <= 0) ext = 1;
  { /* the root cell: the smallest 2^t c h at least the largest extent, h = (volume / N)^(1/d) the points' mean spacing */
    PetscReal vol = 1;
    PetscInt  dp  = 0;
    for (PetscInt d = 0; d < cdim; d++)
      if (hi[d] > lo[d]) {
        vol *= hi[d] - lo[d];
        dp++;
      }
    if (dp) {
      const PetscReal h = AuxAMGTreeSpacing(cdim) * PetscPowReal(vol / (PetscReal)M, 1.0 / dp);
      ext               = PetscMax(ext, h * PetscPowReal(2.0, PetscCeilReal(PetscLog2Real(ext / h))));
    }
  }
  PetscCall(PetscMalloc4(PetscMax(m, 1), &pt, PetscMax(m, 1), &leaf, PetscMax(m, 1), &first, PetscMax(m, 1), &agg));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt64 q[3] = {0, 0, 0}, c = 0;
    for (PetscInt d = 0; d < cdim; d++) q[d] = (PetscInt64)PetscMin((PetscReal)(((PetscInt64)1 << B) - 1), PetscFloorReal((x[i * cdim + d] - lo[d]) / ext * (PetscReal)((PetscInt64)1 << B)));
    for (int b = B - 1; b >= 0; b--)
      for (PetscInt d = cdim - 1; d >= 0; d--) c = (c << 1) | ((q[d] >> b) & 1);
    pt[i].code = c;
    pt[i].row  = i;
  }
  qsort(pt, (size_t)m, sizeof(AuxAMGPoint), AuxAMGPointCompare);
  for (PetscInt i = 0; i < m; i++) first[pt[i].row] = i; /* level 0's row r: the point's sorted position */
  for (PetscInt l = 0; l + 1 < j->maxlevels && l + 1 < AUXAMG_MAX_LEVELS; l++) {
    PetscInt nc = 0, Nc = 0, Nf;
    PetscCall(MatGetSize(j->A[l], &Nf, NULL));
    if (Nf <= PCAuxAMGCoarseSize(j)) break;
    for (;;) {
      PetscCall(AuxAMGTreeCut(comm, pt, m, (int)cdim, B, T, leaf, &nc));
      PetscCallMPI(MPIU_Allreduce(&nc, &Nc, 1, MPIU_INT, MPI_SUM, comm));
      if ((PetscReal)Nc <= AUXAMG_COARSENING * (PetscReal)Nf || T >= M) break;
      T *= AuxAMGTreeGrowth(cdim);
    }
    if ((PetscReal)Nc > AUXAMG_COARSENING * (PetscReal)Nf) break; /* nothing left to coarsen */
    for (PetscInt r = 0; r < nf; r++) agg[r] = leaf[first[r]];
    PetscCall(PCAuxAMGAddLevel(pc, l, nf, nc, agg));
    if (PCAuxAMGColored(j) && !PCAuxAMGLevelJacobi(j, l)) PetscCall(PCAuxAMGColoringGraph(j, l, nf, agg, nc));
    for (PetscInt i = m - 1; i >= 0; i--) first[leaf[i]] = i; /* the next level's rows are this rank's cut cells, in code order */
    nf = nc;
    T *= AuxAMGTreeGrowth(cdim);
  }
  PetscCall(PCAuxAMGLevelSizes(j));
  PetscCall(PetscFree4(pt, leaf, first, agg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* a host AIJ copy of level l of the GPU path (the ELL's slots with no unknown add 0 to the diagonal) */
static PetscErrorCode PCAuxAMGDeviceToAIJ(PC_AuxAMG *j, PetscInt l, Mat *B)
{
  const AuxAMGDeviceMat *D = &j->dA[l];
  PetscInt              *col;
  PetscScalar           *val;

  PetscFunctionBegin;
  if (!D->w) { /* level 0: A itself */
    PetscCall(MatConvert(j->A[0], MATAIJ, MAT_INITIAL_MATRIX, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc2(D->w * D->n, &col, D->w * D->n, &val));
  PetscCall(AuxAMGCopyToHost_CUDA(col, D->col, sizeof(PetscInt) * D->w * D->n));
  PetscCall(AuxAMGCopyToHost_CUDA(val, D->val, sizeof(PetscScalar) * D->w * D->n));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, D->n, D->n, D->w, NULL, B));
  for (PetscInt i = 0; i < D->n; i++)
    for (PetscInt s = 0; s < D->w; s++) PetscCall(MatSetValue(*B, i, col[s * D->n + i], val[s * D->n + i], ADD_VALUES));
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(col, val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the aggregation of level l of the GPU path as a host 0/1 prolongation */
static PetscErrorCode PCAuxAMGDeviceProlongation(PC_AuxAMG *j, PetscInt l, Mat *P)
{
  const AuxAMGDeviceAgg *g = &j->dagg[l];
  PetscInt              *agg;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(g->n, 1), &agg));
  PetscCall(AuxAMGCopyToHost_CUDA(agg, g->d_agg, sizeof(PetscInt) * g->n));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, g->n, g->nc, 1, NULL, P));
  for (PetscInt i = 0; i < g->n; i++) PetscCall(MatSetValue(*P, i, agg[i], 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(agg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAuxAMGDeviceInvDiag(PC_AuxAMG *j, PetscInt l)
{
  PetscInt zr;

  PetscFunctionBegin;
  PetscCall(AuxAMGInvDiag_CUDA(&j->dA[l], &j->didiag[l], &zr, &j->maxlen[l]));
  PetscCheck(zr < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "PCAUXAMG: zero diagonal in local row %" PetscInt_FMT " of level %" PetscInt_FMT, zr, l);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the GPU path's levels (one rank, A an AIJCUSPARSE matrix) from the finest level's keys (key, m of them) */
static PetscErrorCode PCAuxAMGSetUpDevice(PC pc, PetscInt cdim, PetscInt M, PetscInt m, const PetscInt64 *key)
{
#if defined(PETSC_HAVE_CUDA)
  PC_AuxAMG         *j  = (PC_AuxAMG *)pc->data;
  Mat                Ad = j->A[0];
  PetscBool          mpi;
  const PetscInt    *rowptr, *col;
  const PetscScalar *val;
  PetscInt64        *d_key, *d_ukeys;
  PetscInt           nf = m;
  MatInfo            info;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)Ad, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(j->A[0], &Ad, NULL, NULL)); /* one rank: the diagonal block is all of A */
  PetscCall(MatSeqAIJCUSPARSEGetIJ(Ad, PETSC_FALSE, &rowptr, &col));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(Ad, &val));
  j->dA[0].n      = m;
  j->dA[0].w      = 0;
  j->dA[0].rowptr = rowptr;
  j->dA[0].col    = col;
  j->dA[0].val    = val; /* valid while A is unchanged: a change of A sets the PC up again */
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(Ad, &val));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(Ad, PETSC_FALSE, &rowptr, &col));
  PetscCall(MatGetInfo(j->A[0], MAT_GLOBAL_SUM, &info));
  j->nrows[0] = m;
  j->nnz[0]   = info.nz_used;
  PetscCall(PCAuxAMGDeviceInvDiag(j, 0));
  PetscCall(AuxAMGUpload_CUDA((void **)&d_key, key, sizeof(PetscInt64) * m));
  for (PetscInt l = 0; l + 1 < j->maxlevels && l + 1 < AUXAMG_MAX_LEVELS; l++) {
    AuxAMGDeviceAgg *g  = &j->dagg[l];
    PetscInt         nc = 0, r, nco = 1, w;
    PetscInt64       nnz;
    PetscInt        *agg;

    if (nf <= PCAuxAMGCoarseSize(j)) break;
    if (l > 0) {
      if (M == 1) break;
      PetscCall(AuxAMGParent_CUDA(nf, cdim, M, d_key));
      M = (M + 1) / 2;
    }
    for (;;) {
      PetscCall(AuxAMGAggregate_CUDA(nf, d_key, &agg, &nc, &d_ukeys));
      if ((PetscReal)nc <= AUXAMG_COARSENING * (PetscReal)nf || M == 1) break;
      PetscCall(AuxAMGFree_CUDA(agg));
      PetscCall(AuxAMGFree_CUDA(d_ukeys));
      PetscCall(AuxAMGParent_CUDA(nf, cdim, M, d_key));
      M = (M + 1) / 2;
    }
    if ((PetscReal)nc > AUXAMG_COARSENING * (PetscReal)nf) { /* nothing left to coarsen */
      PetscCall(AuxAMGFree_CUDA(agg));
      PetscCall(AuxAMGFree_CUDA(d_ukeys));
      break;
    }
    g->n     = nf;
    g->nc    = nc;
    g->d_agg = agg;
    PetscCall(AuxAMGMembers_CUDA(g, d_ukeys));
    PetscCall(AuxAMGRadius_CUDA(&j->dA[l], g, cdim, M, &r));
    j->radius[l] = r;
    if (!PCAuxAMGLevelJacobi(j, l)) { /* the Gauss-Seidel's colors (the Jacobi needs none) */
      for (PetscInt d = 0; d < cdim; d++) nco *= r + 1;
      j->ncolors[l] = nco;
      PetscCall(PetscMalloc1(nco + 1, &j->colorstart[l]));
      PetscCall(AuxAMGColors_CUDA(g, d_ukeys, cdim, M, r, j->colorstart[l]));
    }
    PetscCall(PetscLogEventBegin(VPATCH_AuxAMGGalerkin, pc, 0, 0, 0));
    PetscCall(AuxAMGGalerkin_CUDA(&j->dA[l], g, d_ukeys, cdim, M, r, &j->dcol[l + 1], &j->dval[l + 1], &w, &nnz));
    PetscCall(PetscLogGpuFlops(j->nnz[l])); /* one addition per entry of the finer operator */
    PetscCall(PetscLogEventEnd(VPATCH_AuxAMGGalerkin, pc, 0, 0, 0));
    j->dA[l + 1].n   = nc;
    j->dA[l + 1].w   = w;
    j->dA[l + 1].col = j->dcol[l + 1];
    j->dA[l + 1].val = j->dval[l + 1];
    j->nrows[l + 1]  = nc;
    j->nnz[l + 1]    = (PetscLogDouble)nnz;
    PetscCall(PCAuxAMGDeviceInvDiag(j, l + 1));
    if (j->checkgalerkin) {
      Mat Af, P, Ac;
      PetscCall(PCAuxAMGDeviceToAIJ(j, l, &Af));
      PetscCall(PCAuxAMGDeviceProlongation(j, l, &P));
      PetscCall(PCAuxAMGDeviceToAIJ(j, l + 1, &Ac));
      PetscCall(PCAuxAMGCompareGalerkin(pc, l, Af, P, Ac));
      PetscCall(MatDestroy(&Af));
      PetscCall(MatDestroy(&P));
      PetscCall(MatDestroy(&Ac));
    }
    PetscCall(AuxAMGFree_CUDA(d_key));
    d_key      = d_ukeys; /* the next level's unknowns are the tree cells */
    nf         = nc;
    j->nlevels = l + 2;
  }
  PetscCall(AuxAMGFree_CUDA(d_key));
  if (j->nlevels > 1 && j->nrows[j->nlevels - 1] > AUXAMG_DENSE_MAX) { /* too large to invert: its LU on the host */
    PetscCall(PetscInfo(pc, "the coarsest level has %" PetscInt_FMT " > %d unknowns: its LU on the host, each level's operations launched from the host\n", j->nrows[j->nlevels - 1], AUXAMG_DENSE_MAX));
    PetscCall(PCAuxAMGDeviceToAIJ(j, j->nlevels - 1, &j->A[j->nlevels - 1]));
    PetscCall(MatCreateVecs(j->A[j->nlevels - 1], &j->hx, &j->hb));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCAUXAMG: this PETSc has no CUDA");
#endif
}

/* the coarse levels' cycle on the device: the levels' operators, aggregations and colors, and the device arrays of
   their work vectors (which the Vecs keep: they are allocated here, on first access, and never moved) */
static PetscErrorCode PCAuxAMGSetUpDeviceCycle(PC_AuxAMG *j)
{
#if defined(PETSC_HAVE_CUDA)
  AuxAMGCycleDesc d;
  Vec            *v[8] = {j->rc, j->e, j->r, j->c1, j->v1, j->r1, j->c2, j->v2};
  PetscScalar   **a[8] = {d.b, d.x, d.r, d.c1, d.v1, d.r1, d.c2, d.v2};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&d, sizeof(d)));
  d.nlevels = j->nlevels;
  d.kcycle  = j->cycle == PC_AUXAMG_CYCLE_K ? PETSC_TRUE : PETSC_FALSE;
  d.ktol    = j->ktol;
  for (PetscInt l = 0; l < j->nlevels; l++) {
    d.A[l]      = j->dA[l];
    d.idiag[l]  = j->didiag[l];
    d.jac[l]    = j->djac[l];
    d.maxlen[l] = j->maxlen[l];
    if (l + 1 < j->nlevels) {
      d.agg[l]        = j->dagg[l];
      d.ncolors[l]    = j->ncolors[l];
      d.colorstart[l] = j->colorstart[l];
    }
    if (!l) continue;
    for (PetscInt q = 0; q < 8; q++) {
      PetscScalar *p;
      PetscCall(VecCUDAGetArray(v[q][l], &p));
      a[q][l] = p;
      PetscCall(VecCUDARestoreArray(v[q][l], &p)); /* sets p to NULL */
    }
  }
  PetscCall(AuxAMGCycleCreate_CUDA(&d, &j->dcycle));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: this PETSc has no CUDA");
#endif
}

/* the device CSR of a SEQAIJCUSPARSE block (valid while the matrix is unchanged: a change sets the PC up again) */
static PetscErrorCode PCAuxAMGDeviceCSR(Mat B, AuxAMGDeviceMat *dB)
{
#if defined(PETSC_HAVE_CUDA)
  const PetscInt    *rowptr, *col;
  const PetscScalar *val;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSEGetIJ(B, PETSC_FALSE, &rowptr, &col));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(B, &val));
  PetscCall(MatGetLocalSize(B, &dB->n, NULL));
  dB->w      = 0;
  dB->rowptr = rowptr;
  dB->col    = col;
  dB->val    = val;
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(B, &val));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(B, PETSC_FALSE, &rowptr, &col));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: this PETSc has no CUDA");
#endif
}

/* several ranks on the GPU or the adaptive tree there: the device data of the levels' Gauss-Seidel (the host's colored
   order, the blocks' CSR, the inverse diagonal, the ghosts by color) */
static PetscErrorCode PCAuxAMGSetUpDistSmoother(PC pc)
{
#if defined(PETSC_HAVE_CUDA)
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;

  PetscFunctionBegin;
  for (PetscInt l = 0; l + 1 < j->nlevels; l++) {
    Mat              Ad = j->A[l], Ao = NULL;
    PetscInt         zr, n, nc;
    PetscBool        mpi;
    AuxAMGDeviceAgg *g = &j->dagg[l];

    if (!PCAuxAMGColored(j) || PCAuxAMGLevelJacobi(j, l)) continue;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)j->A[l], MATMPIAIJ, &mpi));
    if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(j->A[l], &Ad, &Ao, NULL));
    PetscCall(PCAuxAMGDeviceCSR(Ad, &j->dA[l]));
    if (Ao) PetscCall(PCAuxAMGDeviceCSR(Ao, &j->dAo[l]));
    PetscCall(AuxAMGInvDiag_CUDA(&j->dA[l], &j->didiag[l], &zr, &j->maxlen[l]));
    PetscCheck(zr < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "PCAUXAMG: zero diagonal in local row %" PetscInt_FMT " of level %" PetscInt_FMT, zr, l);
    n     = j->dA[l].n;
    nc    = j->colorstart[l][j->ncolors[l]];
    g->n  = n;
    g->nc = nc;
    PetscCall(AuxAMGUpload_CUDA((void **)&g->d_perm, j->order[l], sizeof(PetscInt) * n));
    PetscCall(AuxAMGUpload_CUDA((void **)&g->d_start, j->cellstart[l], sizeof(PetscInt) * (nc + 1)));
    PetscCall(AuxAMGSequence_CUDA(nc, &g->d_cells));
    if (j->ghostscatter[l]) { /* the ghosts by their row's color: before a color, only those of the color swept last changed */
      const PetscInt *garray;
      PetscInt        ng, *rc, *gc, *from, *to;
      Vec             x;
      PetscCall(MatMPIAIJGetSeqAIJ(j->A[l], NULL, NULL, &garray));
      PetscCall(VecGetLocalSize(j->ghost[l], &ng));
      PetscCall(PetscMalloc4(PetscMax(n, 1), &rc, PetscMax(ng, 1), &gc, PetscMax(ng, 1), &from, PetscMax(ng, 1), &to));
      for (PetscInt c = 0; c < j->ncolors[l]; c++)
        for (PetscInt q = j->cellstart[l][j->colorstart[l][c]]; q < j->cellstart[l][j->colorstart[l][c + 1]]; q++) rc[j->order[l][q]] = c;
      PetscCall(PetscSFBcastBegin(j->ghostscatter[l], MPIU_INT, rc, gc, MPI_REPLACE));
      PetscCall(PetscSFBcastEnd(j->ghostscatter[l], MPIU_INT, rc, gc, MPI_REPLACE));
      PetscCall(MatCreateVecs(j->A[l], &x, NULL));
      PetscCall(PetscCalloc1(j->ncolors[l], &j->cscatter[l]));
      for (PetscInt c = 0; c < j->ncolors[l]; c++) {
        PetscInt m = 0;
        IS       isf, ist;
        for (PetscInt k = 0; k < ng; k++)
          if (gc[k] == c) {
            from[m] = garray[k];
            to[m++] = k;
          }
        PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m, from, PETSC_USE_POINTER, &isf));
        PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m, to, PETSC_USE_POINTER, &ist));
        PetscCall(VecScatterCreate(x, isf, j->ghost[l], ist, &j->cscatter[l][c]));
        PetscCall(ISDestroy(&isf));
        PetscCall(ISDestroy(&ist));
      }
      PetscCall(VecDestroy(&x));
      PetscCall(PetscFree4(rc, gc, from, to));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCAUXAMG: this PETSc has no CUDA");
#endif
}

/* several ranks on the GPU: the last distributed level L (nlast local rows, tree keys key of the grid M) and the levels
   below it on rank 0, as sub (a PCAUXAMG on one rank, the GPU path), which gets the level's operator and keys and
   continues the tree from them */
static PetscErrorCode PCAuxAMGSetUpGather(PC pc, PetscInt cdim, PetscInt M, PetscInt nlast, const PetscInt64 *key)
{
  PC_AuxAMG  *j    = (PC_AuxAMG *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscInt    L = j->nlevels - 1, N = j->nrows[L];
  PetscMPIInt size, rank, cnt, *counts = NULL, *displs = NULL;
  PetscInt64 *all = NULL;
  IS          is;
  Mat        *As;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMPIIntCast(nlast, &cnt));
  if (rank == 0) {
    PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
    PetscCall(PetscMalloc1(PetscMax(N, 1), &all));
  }
  PetscCallMPI(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    displs[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) PetscCall(PetscMPIIntCast((PetscInt64)displs[r] + counts[r], &displs[r + 1]));
  }
  PetscCallMPI(MPI_Gatherv(key, cnt, MPIU_INT64, all, counts, displs, MPIU_INT64, 0, comm)); /* rank order: the level's global order */
  PetscCall(ISCreateStride(PETSC_COMM_SELF, rank == 0 ? N : 0, 0, 1, &is));
  PetscCall(MatCreateSubMatrices(j->A[L], 1, &is, &is, MAT_INITIAL_MATRIX, &As));
  PetscCall(ISDestroy(&is));
  /* with device buffers point to point (a general index set keeps VecScatterCreate() from the gather collective, which
     an MPI that moves device memory only point to point cannot take) */
  if (j->exchdevice) {
    const PetscInt ng = rank == 0 ? N : 0; /* rank 0 receives the level */
    PetscInt      *idx;
    IS             ix, iy;
    PetscCall(PetscMalloc1(ng, &idx));
    for (PetscInt i = 0; i < ng; i++) idx[i] = i;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ng, idx, PETSC_OWN_POINTER, &ix));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, ng, 0, 1, &iy));
#if defined(PETSC_HAVE_CUDA)
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, ng, &j->subb)); /* the gather serves the GPU path only */
#else
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, ng, &j->subb));
#endif
    PetscCall(VecScatterCreate(j->r[L], ix, j->subb, iy, &j->subscatter));
    PetscCall(ISDestroy(&ix));
    PetscCall(ISDestroy(&iy));
  } else
    PetscCall(VecScatterCreateToZero(j->r[L], &j->subscatter, &j->subb));
  PetscCall(VecDuplicate(j->subb, &j->subx));
  if (rank == 0) {
    PC_AuxAMG *s;
    PetscCall(MatConvert(As[0], MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &As[0]));
    PetscCall(PCCreate(PETSC_COMM_SELF, &j->sub));
    PetscCall(PCSetType(j->sub, PCAUXAMG));
    PetscCall(PCSetOperators(j->sub, As[0], As[0]));
    s                = (PC_AuxAMG *)j->sub->data;
    s->skey          = all;
    s->skn           = N;
    s->skM           = M;
    s->skcdim        = cdim;
    s->levelshift    = L;
    s->cycle         = j->cycle;
    s->maxlevels     = j->maxlevels - L;
    s->coarsesize    = j->coarsesize;
    s->ktol          = j->ktol;
    s->smoother      = j->smoother;
    s->cjacobi       = j->cjacobi;
    s->graph         = j->graph;
    s->checkgalerkin = j->checkgalerkin;
    s->tree          = PC_AUXAMG_TREE_UNIFORM;
    PetscCall(PCSetUp(j->sub));
    PetscCall(PetscFree(s->skey)); /* the keys served the set-up */
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCall(MatDestroySubMatrices(1, &As));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the most points in one cell of the uniform grid among the m keys (the cells' numbers). Counted in an array over the
   keys' range where it is at most 2 m long (one pass, 4 bytes a key; a rank's keys span about its share of the grid
   when the partition cuts the slowest direction, and the whole range on one rank), else by a sort of the keys */
static PetscErrorCode PCAuxAMGFullestCell(PetscInt m, const PetscInt64 *key, PetscInt *fullest)
{
  PetscInt64 kmin = PETSC_INT64_MAX, kmax = PETSC_INT64_MIN;

  PetscFunctionBegin;
  *fullest = 0;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < m; i++) {
    kmin = PetscMin(kmin, key[i]);
    kmax = PetscMax(kmax, key[i]);
  }
  if (kmax - kmin < 2 * (PetscInt64)m) {
    uint32_t *cnt;
    PetscCall(PetscCalloc1(kmax - kmin + 1, &cnt));
    for (PetscInt i = 0; i < m; i++) {
      const PetscInt c = (PetscInt)++cnt[key[i] - kmin]; /* not inside PetscMax(), which evaluates an argument twice */
      *fullest         = PetscMax(*fullest, c);
    }
    PetscCall(PetscFree(cnt));
  } else {
    PetscInt64 *sk;
    PetscCall(PetscMalloc1(m, &sk));
    PetscCall(PetscArraycpy(sk, key, m));
    PetscCall(PetscSortInt64(m, sk));
    for (PetscInt i = 0, e; i < m; i = e) {
      for (e = i + 1; e < m && sk[e] == sk[i]; e++)
        ;
      *fullest = PetscMax(*fullest, e - i);
    }
    PetscCall(PetscFree(sk));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the GPU path (gpu: one rank, the uniform grid; dist: several ranks or the adaptive tree, the levels set up on the host,
   the cycle on the device): an AIJCUSPARSE matrix, the colored Gauss-Seidel, -pc_auxamg_gpu. Where -pc_auxamg_tree auto
   then picks the adaptive tree, the set-up turns gpu into dist (PCSetUp_AuxAMG()) */
static PetscErrorCode PCAuxAMGUseGPU(PC pc, PetscBool *gpu, PetscBool *dist)
{
  PC_AuxAMG  *j = (PC_AuxAMG *)pc->data;
  PetscBool   cuda, bound;
  PetscMPIInt size;

  PetscFunctionBegin;
  *gpu  = PETSC_FALSE;
  *dist = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc->pmat, &cuda, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  if (!cuda || !j->usegpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBoundToCPU(pc->pmat, &bound));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (bound)
    PetscCall(PetscInfo(pc, "the matrix is bound to the CPU: the host path\n"));
  else if (j->smoother == PC_AUXAMG_SMOOTHER_LOCAL)
    PetscCall(PetscInfo(pc, "-pc_auxamg_smoother local: the host path (MatSOR)\n"));
  else if (size > 1 || j->tree == PC_AUXAMG_TREE_ADAPTIVE) {
    PetscCall(PetscInfo(pc, "%d rank(s)%s: the levels set up on the host, the cycle on the device%s\n", size, j->tree == PC_AUXAMG_TREE_ADAPTIVE ? ", the adaptive tree" : "", size > 1 ? ", the small levels gathered on rank 0" : ""));
    *dist = PETSC_TRUE;
  } else
    *gpu = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAuxAMGJacobiWeights(PC_AuxAMG *);

static PetscErrorCode PCSetUp_AuxAMG(PC pc)
{
  PC_AuxAMG       *j    = (PC_AuxAMG *)pc->data;
  MPI_Comm         comm = PetscObjectComm((PetscObject)pc);
  Mat              A    = pc->pmat, Aq;
  PetscInt         m, nn, N, rstart, cdim, M;
  const PetscReal *x;
  Vec              cvec;
  PetscReal        lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, h[3];
  PetscInt64      *key;
  PetscInt        *agg, nlast = 0;
  PetscBool        assembled, gpu, dist;
  PetscLogDouble   nnzall = 0;

  PetscFunctionBegin;
  PetscCall(PCReset_AuxAMG(pc));
  PetscCall(PetscLogEventBegin(VPATCH_AuxAMGSetUp, pc, 0, 0, 0));
  PetscCall(MatQBoxLaplacianGetAIJ_Private(A, "PCAUXAMG", &Aq)); /* the matrix-free DMQBOX operator (a level of PCMG): its assembled copy */
  if (Aq) A = Aq;
  PetscCall(MatGetSize(A, &N, &nn));
  PetscCheck(N == nn, comm, PETSC_ERR_ARG_SIZ, "PCAUXAMG needs a square matrix, not %" PetscInt_FMT " x %" PetscInt_FMT, N, nn);
  PetscCall(MatAssembled(A, &assembled));
  PetscCheck(assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "PCAUXAMG needs an assembled matrix: call MatAssemblyBegin()/MatAssemblyEnd()");
  {
    PetscBool aij, cusparse;
    MatType   type;
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &aij, MATSEQAIJ, MATMPIAIJ, ""));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &cusparse, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    PetscCall(MatGetType(A, &type));
    PetscCheck(aij || cusparse, comm, PETSC_ERR_SUP, "PCAUXAMG needs an AIJ matrix (AIJ or AIJCUSPARSE), not %s: assemble the operator (with a DM: -dm_mat_type aij)", type);
  }
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  if (j->skey) { /* the levels below a parent's (PCAuxAMGSetUpGather()): its keys instead of coordinates */
    PetscCheck(j->skn == m, comm, PETSC_ERR_PLIB, "PCAUXAMG: %" PetscInt_FMT " keys for %" PetscInt_FMT " rows", j->skn, m);
    cdim = j->skcdim;
    x    = NULL;
    cvec = NULL;
  } else
    PetscCall(PCAuxAMGGetCoordinates(pc, m, &cdim, &x, &cvec));
  for (PetscInt i = 0; x && i < m; i++)
    for (PetscInt d = 0; d < cdim; d++) {
      lo[d] = PetscMin(lo[d], x[i * cdim + d]);
      hi[d] = PetscMax(hi[d], x[i * cdim + d]);
    }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, lo, 3, MPIU_REAL, MPIU_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, hi, 3, MPIU_REAL, MPIU_MAX, comm));
  /* the auxiliary grid: M cells per direction, M = (N / ppc)^(1/d) rounded, so that a cell holds about ppc points on
     average; M need not be a power of 2 (a tree cell of the next level holds up to 2^d cells: where the grid has an odd
     number of cells in a direction, the last ones have one child in it) */
  PetscCall(PetscObjectReference((PetscObject)A));
  j->A[0]    = A;
  j->nlevels = 1;
  PetscCall(PCAuxAMGUseGPU(pc, &gpu, &dist));
  j->gpu  = gpu;
  j->dist = dist;
  {
    j->adaptive  = (PetscBool)(j->tree == PC_AUXAMG_TREE_ADAPTIVE);
    j->fullest   = 0;
    j->cdimsetup = cdim;
    M            = (PetscInt)PetscMax(1, PetscMin(1 << 20, PetscFloorReal(PetscPowReal(PetscMax((PetscReal)N / j->ppc, 1), 1.0 / cdim) + 0.5)));
    for (PetscInt d = 0; d < cdim; d++) h[d] = (hi[d] > lo[d] ? hi[d] - lo[d] : 1.0) / M * (1 + 1e-12);
    PetscCall(PetscMalloc2(PetscMax(m, 1), &key, PetscMax(m, 1), &agg));
    if (j->skey) {
      M = j->skM;
      PetscCall(PetscArraycpy(key, j->skey, m));
    } else
      for (PetscInt i = 0; i < m; i++) {
        PetscInt64 k = 0;
        for (PetscInt d = cdim - 1; d >= 0; d--) k = k * M + PetscMin(M - 1, (PetscInt)((x[i * cdim + d] - lo[d]) / h[d]));
        key[i] = k;
      }
    if (j->tree == PC_AUXAMG_TREE_AUTO && !j->skey) { /* the fullest cell of the uniform grid (its points on one rank): graded where it is far above the average */
      PetscCall(PCAuxAMGFullestCell(m, key, &j->fullest));
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &j->fullest, 1, MPIU_INT, MPI_MAX, comm));
      j->fullmax  = (gpu || dist ? AUXAMG_TREE_AUTO_FULL_DEVICE : AUXAMG_TREE_AUTO_FULL) * (PetscReal)(1 << cdim) * j->ppc;
      j->adaptive = (PetscBool)((PetscReal)j->fullest > j->fullmax);
      PetscCall(PetscInfo(pc, "-pc_auxamg_tree auto: the fullest of the uniform grid's cells holds %" PetscInt_FMT " points (%g on average): the %s tree\n", j->fullest, (double)j->ppc, j->adaptive ? "adaptive" : "uniform"));
      if (j->adaptive && gpu) { /* the tree is set up on the host: the path of several ranks, on one */
        PetscCall(PetscInfo(pc, "-pc_auxamg_tree auto chose the adaptive tree: the levels set up on the host, the cycle on the device\n"));
        gpu = j->gpu = PETSC_FALSE;
        dist = j->dist = PETSC_TRUE;
      }
    }
    if (j->adaptive) {
      PetscCall(PCAuxAMGSetUpTree(pc, cdim, m, x, lo, hi));
      j->M = 0;
    } else {
      j->M = M;
      /* the levels: the points of a cell, then the children of a tree cell (where that does not coarsen, as when a cell
         holds one point, the next tree level at once) */
      if (gpu)
        PetscCall(PCAuxAMGSetUpDevice(pc, cdim, M, m, key));
      else {
        PetscMPIInt size;
        PetscCallMPI(MPI_Comm_size(comm, &size));
        PetscCall(PCAuxAMGSetUpHost(pc, cdim, &M, m, key, agg, j->gathersize != PETSC_DETERMINE ? j->gathersize : PetscIntMultTruncate(j->exchdevice ? AUXAMG_GATHER_PER_RANK_DEVICE : AUXAMG_GATHER_PER_RANK, size), &nlast));
      }
    }
  }
  if (cvec) PetscCall(VecRestoreArrayRead(cvec, &x));
  /* work vectors, the levels gathered on rank 0 (several ranks on the GPU), and the coarse solver */
  for (PetscInt l = 0; l < j->nlevels; l++) {
    nnzall += j->nnz[l];
    if (!l) { /* level 0 needs its residual only: its correction is the PC's output, its K-cycle steps do not exist */
      PetscCall(MatCreateVecs(j->A[0], NULL, &j->r[0]));
      continue;
    }
    if (!gpu) PetscCall(MatCreateVecs(j->A[l], &j->e[l], &j->r[l]));
#if defined(PETSC_HAVE_CUDA)
    else {
      PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, j->nrows[l], &j->e[l]));
      PetscCall(VecDuplicate(j->e[l], &j->r[l]));
    }
#endif
    PetscCall(VecDuplicate(j->r[l], &j->rc[l]));
    PetscCall(VecDuplicate(j->r[l], &j->c1[l]));
    PetscCall(VecDuplicate(j->r[l], &j->v1[l]));
    PetscCall(VecDuplicate(j->r[l], &j->r1[l]));
    PetscCall(VecDuplicate(j->r[l], &j->c2[l]));
    PetscCall(VecDuplicate(j->r[l], &j->v2[l]));
  }
  j->opcomplexity = j->nnz[0] > 0 ? nnzall / j->nnz[0] : 1;
  if (j->cjacobi) PetscCall(PCAuxAMGJacobiWeights(j));
  if (dist) {
    PetscCall(PCAuxAMGSetUpDistSmoother(pc));
    if (!j->adaptive && j->nlevels > 1 && j->nrows[j->nlevels - 1] > PCAuxAMGCoarseSize(j)) PetscCall(PCAuxAMGSetUpGather(pc, cdim, M, nlast, key)); /* the uniform grid's keys continue there */
  }
  PetscCall(PetscFree2(key, agg));
  PetscCall(PCAuxAMGExchangeDevice(pc));
  if (j->subscatter) {
    PetscCall(PetscLogEventEnd(VPATCH_AuxAMGSetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (gpu && j->nlevels > 1 && !j->A[j->nlevels - 1]) {
    PetscCall(PCAuxAMGSetUpDeviceCycle(j));
    PetscCall(PetscLogEventEnd(VPATCH_AuxAMGSetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(KSPCreate(comm, &j->coarse));
  PetscCall(KSPSetNestLevel(j->coarse, pc->kspnestlevel + 1));
  PetscCall(KSPSetOptionsPrefix(j->coarse, ((PetscObject)pc)->prefix));
  PetscCall(KSPAppendOptionsPrefix(j->coarse, "pc_auxamg_coarse_"));
  PetscCall(KSPSetType(j->coarse, KSPPREONLY));
  {
    PC cpc;
    PetscCall(KSPGetPC(j->coarse, &cpc));
    PetscCall(PCSetType(cpc, PCREDUNDANT));
  }
  PetscCall(KSPSetOperators(j->coarse, j->A[j->nlevels - 1], j->A[j->nlevels - 1]));
  PetscCall(KSPSetFromOptions(j->coarse));
  PetscCall(KSPSetUp(j->coarse));
  PetscCall(PetscLogEventEnd(VPATCH_AuxAMGSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operations of a level, on the host (PETSc's matrices) or on the GPU (our kernels; level 0's residual by A) */

static PetscErrorCode PCAuxAMGMult(PC_AuxAMG *, PetscInt, Vec, Vec, Vec);

/* the damped Jacobi's weights of the levels 1 .. L - 2 (-pc_auxamg_coarse_smoother jacobi; of a PC for the levels below
   a parent's, from its level 0): w_i = 1 / (a_ii + sum_{j != i} |a_ij| / 2), 0 where that is 0 (cuda/auxamg.cu computes
   the GPU path's by the same formula) */
static PetscErrorCode PCAuxAMGJacobiWeights(PC_AuxAMG *j)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < j->nlevels - 1; l++) {
    if (!PCAuxAMGLevelJacobi(j, l)) continue;
    if (j->gpu) {
#if defined(PETSC_HAVE_CUDA)
      PetscCall(AuxAMGJacobiWeights_CUDA(&j->dA[l], &j->djac[l]));
#endif
    } else {
      PetscInt     rs, re;
      PetscScalar *w;

      PetscCall(VecDuplicate(j->r[l], &j->jac[l]));
      PetscCall(MatGetOwnershipRange(j->A[l], &rs, &re));
      PetscCall(VecGetArrayWrite(j->jac[l], &w));
      for (PetscInt i = rs; i < re; i++) {
        const PetscInt    *cols;
        const PetscScalar *vals;
        PetscInt           nc;
        PetscScalar        d   = 0;
        PetscReal          off = 0;
        PetscCall(MatGetRow(j->A[l], i, &nc, &cols, &vals));
        for (PetscInt k = 0; k < nc; k++) {
          if (cols[k] == i)
            d += vals[k];
          else
            off += PetscAbsScalar(vals[k]);
        }
        PetscCall(MatRestoreRow(j->A[l], i, &nc, &cols, &vals));
        w[i - rs] = d + off / 2 != 0 ? 1 / (d + off / 2) : 0;
      }
      PetscCall(VecRestoreArrayWrite(j->jac[l], &w));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one damped Jacobi sweep on level l >= 1: x = w b (zero), else x += w (b - A x), with r[l] as work space (free while
   level l smooths: its residual was restricted before) */
static PetscErrorCode PCAuxAMGJacobi(PC_AuxAMG *j, PetscInt l, Vec b, Vec x, PetscBool zero)
{
  PetscFunctionBegin;
  if (j->gpu) {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *ba, *xa = NULL;
    PetscScalar       *ya;
    Vec                y = zero ? x : j->r[l];
    PetscCall(VecCUDAGetArrayRead(b, &ba));
    if (!zero) PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArrayWrite(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(AuxAMGJacobi_CUDA(&j->dA[l], j->djac[l], ba, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArrayWrite(y, &ya));
    if (!zero) PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscCall(VecCUDARestoreArrayRead(b, &ba));
    if (!zero) PetscCall(VecCopy(j->r[l], x));
#endif
  } else if (zero)
    PetscCall(VecPointwiseMult(x, j->jac[l], b));
  else {
    PetscCall(PCAuxAMGMult(j, l, b, x, j->r[l]));
    PetscCall(VecPointwiseMult(j->r[l], j->r[l], j->jac[l]));
    PetscCall(VecAXPY(x, 1.0, j->r[l]));
  }
  PetscCall(PetscLogFlops(zero ? j->nrows[l] : 2.0 * j->nnz[l] + 3.0 * j->nrows[l]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCAuxAMGColoredGS() on the device, several ranks: before each color the off-rank values are exchanged (before the
   first all of them, none from zero; then those of the color swept last, the only ones that changed) and the color's
   rows get b - (off-rank block) x_ghost, which the color's sweep on the diagonal block reads as its right-hand side
   (in r[l], free while level l smooths) */
static PetscErrorCode PCAuxAMGColoredGSDevice(PC_AuxAMG *j, PetscInt l, Vec b, Vec x, PetscBool forward, PetscBool zero)
{
#if defined(PETSC_HAVE_CUDA)
  const PetscScalar *ba, *ga = NULL;
  PetscScalar       *xa, *ta = NULL;

  PetscFunctionBegin;
  if (zero) PetscCall(VecSet(x, 0.0));
  for (PetscInt ci = 0; ci < j->ncolors[l]; ci++) {
    const PetscInt c = forward ? ci : j->ncolors[l] - 1 - ci, q0 = j->cellstart[l][j->colorstart[l][c]], q1 = j->cellstart[l][j->colorstart[l][c + 1]];
    if (j->ghostscatter[l]) { /* several ranks: the off-rank values */
      if (zero && ci == 0)
        PetscCall(VecSet(j->ghost[l], 0.0));
      else {
        VecScatter sc = ci == 0 ? j->ghostscatter[l] : j->cscatter[l][forward ? c - 1 : c + 1]; /* all, or the color swept last */
        PetscCall(VecScatterBegin(sc, x, j->ghost[l], INSERT_VALUES, SCATTER_FORWARD));
        PetscCall(VecScatterEnd(sc, x, j->ghost[l], INSERT_VALUES, SCATTER_FORWARD));
      }
    }
    PetscCall(VecCUDAGetArrayRead(b, &ba));
    PetscCall(VecCUDAGetArray(x, &xa));
    PetscCall(PetscLogGpuTimeBegin());
    if (j->ghostscatter[l]) {
      PetscCall(VecCUDAGetArrayRead(j->ghost[l], &ga));
      PetscCall(VecCUDAGetArray(j->r[l], &ta));
      PetscCall(AuxAMGOffRank_CUDA(&j->dAo[l], j->dagg[l].d_perm, q0, q1, ba, ga, ta));
    }
    PetscCall(AuxAMGSmoothColor_CUDA(&j->dA[l], j->didiag[l], &j->dagg[l], j->maxlen[l], j->colorstart[l][c], j->colorstart[l][c + 1], forward, j->ghostscatter[l] ? ta : ba, xa));
    PetscCall(PetscLogGpuTimeEnd());
    if (j->ghostscatter[l]) {
      PetscCall(VecCUDARestoreArray(j->r[l], &ta));
      PetscCall(VecCUDARestoreArrayRead(j->ghost[l], &ga));
    }
    PetscCall(VecCUDARestoreArray(x, &xa));
    PetscCall(VecCUDARestoreArrayRead(b, &ba));
  }
  {
    MatInfo info;
    PetscCall(MatGetInfo(j->A[l], MAT_LOCAL, &info));
    PetscCall(PetscLogGpuFlops(2 * info.nz_used));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: this PETSc has no CUDA");
#endif
}

/* one smoothing sweep on level l (forward before the coarse correction, backward after it; zero: x = 0 on entry): the
   Gauss-Seidel, or on the levels below the finest the damped Jacobi (-pc_auxamg_coarse_smoother) */
static PetscErrorCode PCAuxAMGSmooth(PC_AuxAMG *j, PetscInt l, Vec b, Vec x, PetscBool forward, PetscBool zero)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_AuxAMGSmooth, 0, 0, 0, 0));
  /* the set-up made the Jacobi's weights or the Gauss-Seidel's colors of these levels (a change of the option since makes
     PCSetFromOptions() ask for a new set-up) */
  PetscCheck(l == 0 || (PCAuxAMGLevelJacobi(j, l) ? (j->jac[l] || j->djac[l]) : (!PCAuxAMGColored(j) || j->ncolors[l] > 0)), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "PCAUXAMG: level %" PetscInt_FMT " has no smoother of the kind -pc_auxamg_coarse_smoother asks for", l);
  if (PCAuxAMGLevelJacobi(j, l)) {
    PetscCall(PCAuxAMGJacobi(j, l, b, x, zero));
    PetscCall(PetscLogEventEnd(VPATCH_AuxAMGSmooth, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (j->gpu) {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *ba;
    PetscScalar       *xa;
    if (zero) PetscCall(VecSet(x, 0.0));
    PetscCall(VecCUDAGetArrayRead(b, &ba));
    PetscCall(VecCUDAGetArray(x, &xa));
    PetscCall(PetscLogGpuTimeBegin());
    for (PetscInt ci = 0; ci < j->ncolors[l]; ci++) {
      const PetscInt c = forward ? ci : j->ncolors[l] - 1 - ci;
      PetscCall(AuxAMGSmoothColor_CUDA(&j->dA[l], j->didiag[l], &j->dagg[l], j->maxlen[l], j->colorstart[l][c], j->colorstart[l][c + 1], forward, ba, xa));
    }
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArray(x, &xa));
    PetscCall(VecCUDARestoreArrayRead(b, &ba));
    PetscCall(PetscLogGpuFlops(2 * j->nnz[l]));
#endif
  } else if (PCAuxAMGColored(j) && j->dist)
    PetscCall(PCAuxAMGColoredGSDevice(j, l, b, x, forward, zero));
  else if (PCAuxAMGColored(j))
    PetscCall(PCAuxAMGColoredGS(j, l, b, x, forward, zero));
  else
    PetscCall(MatSOR(j->A[l], b, 1.0, (MatSORType)((forward ? SOR_LOCAL_FORWARD_SWEEP : SOR_LOCAL_BACKWARD_SWEEP) | (zero ? SOR_ZERO_INITIAL_GUESS : 0)), 0.0, 1, 1, x));
  PetscCall(PetscLogEventEnd(VPATCH_AuxAMGSmooth, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A_l x (b NULL) or y = b - A_l x */
static PetscErrorCode PCAuxAMGMult(PC_AuxAMG *j, PetscInt l, Vec b, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (j->gpu && l > 0) {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *ba = NULL, *xa;
    PetscScalar       *ya;
    if (b) PetscCall(VecCUDAGetArrayRead(b, &ba));
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArrayWrite(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(AuxAMGMult_CUDA(&j->dA[l], ba, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArrayWrite(y, &ya));
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    if (b) PetscCall(VecCUDARestoreArrayRead(b, &ba));
    PetscCall(PetscLogGpuFlops(2 * j->nnz[l]));
#endif
  } else if (b)
    PetscCall(MatResidual(j->A[l], b, x, y));
  else
    PetscCall(MatMult(j->A[l], x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rc = P_l^T r (restrict, sums over the cells) or x += P_l e (prolong) */
static PetscErrorCode PCAuxAMGTransfer(PC_AuxAMG *j, PetscInt l, PetscBool restrict_, Vec in, Vec out)
{
  PetscFunctionBegin;
  if (j->gpu) {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *ia;
    PetscScalar       *oa;
    PetscCall(VecCUDAGetArrayRead(in, &ia));
    if (restrict_)
      PetscCall(VecCUDAGetArrayWrite(out, &oa));
    else
      PetscCall(VecCUDAGetArray(out, &oa));
    PetscCall(PetscLogGpuTimeBegin());
    if (restrict_)
      PetscCall(AuxAMGRestrict_CUDA(&j->dagg[l], ia, oa));
    else
      PetscCall(AuxAMGProlongAdd_CUDA(&j->dagg[l], ia, oa));
    PetscCall(PetscLogGpuTimeEnd());
    if (restrict_)
      PetscCall(VecCUDARestoreArrayWrite(out, &oa));
    else
      PetscCall(VecCUDARestoreArray(out, &oa));
    PetscCall(VecCUDARestoreArrayRead(in, &ia));
    PetscCall(PetscLogGpuFlops(j->dagg[l].n));
#endif
  } else if (restrict_)
    PetscCall(MatMultTranspose(j->P[l], in, out));
  else
    PetscCall(MatMultAdd(j->P[l], in, out, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = A_L^-1 b on the coarsest level (the GPU path: through host vectors), or x = B_L b on a level gathered on rank 0
   (sub's cycle) */
static PetscErrorCode PCAuxAMGCoarseSolve(PC_AuxAMG *j, Vec b, Vec x)
{
  PetscFunctionBegin;
  if (j->subscatter) {
    PetscCall(VecScatterBegin(j->subscatter, b, j->subb, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(j->subscatter, b, j->subb, INSERT_VALUES, SCATTER_FORWARD));
    if (j->sub) PetscCall(PCApply(j->sub, j->subb, j->subx));
    PetscCall(VecScatterBegin(j->subscatter, j->subx, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(j->subscatter, j->subx, x, INSERT_VALUES, SCATTER_REVERSE));
  } else if (j->hb) {
    const PetscScalar *src;
    PetscScalar       *dst;
    PetscInt           n;
    PetscCall(VecGetLocalSize(b, &n));
    PetscCall(VecGetArrayRead(b, &src));
    PetscCall(VecGetArrayWrite(j->hb, &dst));
    PetscCall(PetscArraycpy(dst, src, n));
    PetscCall(VecRestoreArrayWrite(j->hb, &dst));
    PetscCall(VecRestoreArrayRead(b, &src));
    PetscCall(KSPSolve(j->coarse, j->hb, j->hx));
    PetscCall(VecGetArrayRead(j->hx, &src));
    PetscCall(VecGetArrayWrite(x, &dst));
    PetscCall(PetscArraycpy(dst, src, n));
    PetscCall(VecRestoreArrayWrite(x, &dst));
    PetscCall(VecRestoreArrayRead(j->hx, &src));
  } else
    PetscCall(KSPSolve(j->coarse, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAuxAMGCycle_Private(PC_AuxAMG *j, PetscInt l, Vec b, Vec x);

/* e ~ A_l^-1 r on a coarse level: the cycle (V), or up to two flexible CG steps preconditioned by it (K). The inner
   products of a step are taken together (VecMDot(): three reductions, each one device synchronization, instead of
   seven); the norm of the first step's residual r - alpha v1 comes from them */
static PetscErrorCode PCAuxAMGCoarseCorrect(PC_AuxAMG *j, PetscInt l, Vec r, Vec e)
{
  PetscScalar rho1, a1, gam, beta, a2, rho2, alpha, dr[3], dv[2], d2[3];
  PetscReal   nr2, nr12;
  Vec         wr[3], wv[2], w2[3];

  PetscFunctionBegin;
  if ((l == j->nlevels - 1 && !j->subscatter) || j->cycle == PC_AUXAMG_CYCLE_V) { /* the gathered level is not the coarsest */
    PetscCall(PCAuxAMGCycle_Private(j, l, r, e));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCAuxAMGCycle_Private(j, l, r, j->c1[l]));
  PetscCall(PCAuxAMGMult(j, l, NULL, j->c1[l], j->v1[l]));
  wr[0] = j->c1[l];
  wr[1] = j->v1[l];
  wr[2] = r;
  wv[0] = j->c1[l];
  wv[1] = j->v1[l];
  PetscCall(VecMDot(r, 3, wr, dr));        /* r.c1, r.v1, r.r */
  PetscCall(VecMDot(j->v1[l], 2, wv, dv)); /* v1.c1, v1.v1 */
  a1   = dr[0];
  rho1 = dv[0];
  if (PetscRealPart(rho1) <= 0) { /* r = 0 */
    PetscCall(VecSet(e, 0.0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  alpha = a1 / rho1;
  nr2   = PetscRealPart(dr[2]);
  nr12  = PetscMax(0, PetscRealPart(dr[2] - 2 * alpha * dr[1] + alpha * alpha * dv[1])); /* |r - alpha v1|^2 */
  if (nr12 <= j->ktol * j->ktol * nr2) {
    PetscCall(VecAXPBY(e, alpha, 0.0, j->c1[l]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecWAXPY(j->r1[l], -alpha, j->v1[l], r));
  PetscCall(PCAuxAMGCycle_Private(j, l, j->r1[l], j->c2[l]));
  PetscCall(PCAuxAMGMult(j, l, NULL, j->c2[l], j->v2[l]));
  w2[0] = j->v1[l];
  w2[1] = j->v2[l];
  w2[2] = j->r1[l];
  PetscCall(VecMDot(j->c2[l], 3, w2, d2)); /* c2.v1, c2.v2, c2.r1 */
  gam  = d2[0];
  beta = d2[1];
  a2   = d2[2];
  rho2 = beta - gam * gam / rho1;
  if (PetscRealPart(rho2) <= 0) {
    PetscCall(VecAXPBY(e, alpha, 0.0, j->c1[l]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecAXPBYPCZ(e, alpha - gam * a2 / (rho1 * rho2), a2 / rho2, 0.0, j->c1[l], j->c2[l]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* e = B_1 r on the device: the coarse levels' cycle, whose vectors are r = rc[1] and e = e[1] */
static PetscErrorCode PCAuxAMGDeviceCoarseCorrect(PC_AuxAMG *j)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscLogDouble flops;
  PetscCall(PetscLogEventBegin(VPATCH_AuxAMGCoarse, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(AuxAMGCycleRun_CUDA(j->dcycle, j->graph, &flops));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscCall(PetscLogEventEnd(VPATCH_AuxAMGCoarse, 0, 0, 0, 0));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = B_l b: pre-smoothing, the coarse correction, post-smoothing (the coarsest level: LU) */
static PetscErrorCode PCAuxAMGCycle_Private(PC_AuxAMG *j, PetscInt l, Vec b, Vec x)
{
  PetscFunctionBegin;
  if (l == j->nlevels - 1) {
    PetscCall(PCAuxAMGCoarseSolve(j, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCAuxAMGSmooth(j, l, b, x, PETSC_TRUE, PETSC_TRUE));
  PetscCall(PCAuxAMGMult(j, l, b, x, j->r[l]));
  PetscCall(PCAuxAMGTransfer(j, l, PETSC_TRUE, j->r[l], j->rc[l + 1]));
  if (j->dcycle) {
    PetscCheck(l == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAUXAMG: the device cycle runs below level 0 only");
    PetscCall(PCAuxAMGDeviceCoarseCorrect(j));
  } else
    PetscCall(PCAuxAMGCoarseCorrect(j, l + 1, j->rc[l + 1], j->e[l + 1]));
  PetscCall(PCAuxAMGTransfer(j, l, PETSC_FALSE, j->e[l + 1], x));
  PetscCall(PCAuxAMGSmooth(j, l, b, x, PETSC_FALSE, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_AuxAMG(PC pc, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PCAuxAMGCycle_Private((PC_AuxAMG *)pc->data, 0, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an option from a list whose change after the set-up asks for a new one (the set-up makes what it chooses: the
   Gauss-Seidel's colors or the Jacobi's weights, the aggregates) */
static PetscErrorCode PCAuxAMGOptionsSetUpEList(PC pc, PetscOptionItems PetscOptionsObject, const char name[], const char text[], const char *const list[], PetscInt n, PetscInt *value)
{
  PetscInt v = *value;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEList(name, text, "PCAUXAMG", list, n, list[v], &v, NULL));
  if (pc->setupcalled && v != *value) {
    PetscCall(PetscInfo(pc, "%s changed after the set-up: set up again at the next solve\n", name));
    pc->setupcalled = PETSC_FALSE;
  }
  *value = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_AuxAMG(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Auxiliary-grid AMG options");
  PetscCall(PetscOptionsEnum("-pc_auxamg_cycle", "The cycle: k (K-cycle, nonlinear: use a flexible outer method) or v", "PCAUXAMG", PCAuxAMGCycles, (PetscEnum)j->cycle, (PetscEnum *)&j->cycle, NULL));
  PetscCall(PetscOptionsRangeInt("-pc_auxamg_max_levels", "Most levels", "PCAUXAMG", j->maxlevels, &j->maxlevels, NULL, 1, AUXAMG_MAX_LEVELS));
  PetscCall(PetscOptionsInt("-pc_auxamg_coarse_size",
                            "Stop coarsening at this many unknowns (default " PetscStringize(AUXAMG_COARSE_HOST) " on the host, where the coarsest level is solved by LU, " PetscStringize(AUXAMG_COARSE_GPU) " on the GPU, by its inverse)", "PCAUXAMG",
                            j->coarsesize, &j->coarsesize, NULL));
  PetscCheck(j->coarsesize == PETSC_DETERMINE || j->coarsesize >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_auxamg_coarse_size must be at least 1, not %" PetscInt_FMT, j->coarsesize);
  PetscCall(VPOptionsReal("-pc_auxamg_points_per_cell", "About this many points per cell of the auxiliary grid on average (a level that does not halve the unknowns is skipped)", "PCAUXAMG", j->ppc, &j->ppc, NULL));
  PetscCall(PCAuxAMGOptionsSetUpEList(pc, PetscOptionsObject, "-pc_auxamg_smoother",
                                      "Gauss-Seidel: processor-local sweeps (MatSOR), colored by the tree (deterministic, independent of the partition's sweep order; on the adaptive tree a greedy coloring of the cells' graph), or auto: "
                                      "colored except on the adaptive tree on the host",
                                      PCAuxAMGSmoothers, 3, &j->smoother));
  PetscCall(PCAuxAMGOptionsSetUpEList(pc, PetscOptionsObject, "-pc_auxamg_tree",
                                      "The aggregates: the cells of a uniform auxiliary grid and their parents, a region tree refined where the points cluster (graded meshes; set up on the host), or auto: the adaptive tree "
                                      "where a uniform cell holds far more points than the average",
                                      PCAuxAMGTrees, 3, &j->tree));
  PetscCall(PetscOptionsBool("-pc_auxamg_gpu", "Apply on the GPU when the matrix is an AIJCUSPARSE matrix (one rank and the uniform grid: the set-up too)", "PCAUXAMG", j->usegpu, &j->usegpu, NULL));
  PetscCall(PetscOptionsInt("-pc_auxamg_gather_size",
                            "Several ranks on the GPU: gather the first level below the finest of at most this many unknowns, and the levels below it, on rank 0 (default " PetscStringize(AUXAMG_GATHER_PER_RANK) " times the ranks, " PetscStringize(
                                AUXAMG_GATHER_PER_RANK_DEVICE) " with -pc_auxamg_exchange_device)",
                            "PCAUXAMG", j->gathersize, &j->gathersize, NULL));
  PetscCheck(j->gathersize == PETSC_DETERMINE || j->gathersize >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_auxamg_gather_size must be at least 0, not %" PetscInt_FMT, j->gathersize);
  {
    const char *const cnames[] = {"jacobi", "gs"};
    PetscInt          cs       = j->cjacobi ? 0 : 1;
    PetscCall(PCAuxAMGOptionsSetUpEList(pc, PetscOptionsObject, "-pc_auxamg_coarse_smoother",
                                        "The levels below the finest: one damped Jacobi sweep before and after the coarse correction (one kernel each on the GPU) or the Gauss-Seidel of -pc_auxamg_smoother", cnames, 2, &cs));
    j->cjacobi = (PetscBool)(cs == 0);
  }
  {
    PetscBool xd = j->exchdevice;
    PetscCall(PetscOptionsBool("-pc_auxamg_exchange_device",
                               "Several ranks on the GPU: the levels' exchanges hand device buffers to MPI after a probe that falls back to host staging (an MPI that moves device memory point to point but fails PETSc's -use_gpu_aware_mpi check; "
                               "default -vpatch_exchange_device)",
                               "PCAUXAMG", xd, &xd, NULL));
    if (pc->setupcalled && xd != j->exchdevice) { /* the star forests and the gather are made at the set-up */
      PetscCall(PetscInfo(pc, "-pc_auxamg_exchange_device changed after the set-up: set up again at the next solve\n"));
      pc->setupcalled = PETSC_FALSE;
    }
    j->exchdevice = xd;
  }
  PetscCall(PetscOptionsBool("-pc_auxamg_gpu_graph", "GPU path: the coarse levels' cycle as one CUDA graph (else its kernels launched one by one; no host synchronization either way)", "PCAUXAMG", j->graph, &j->graph, NULL));
  PetscCall(PetscOptionsBool("-pc_auxamg_check_galerkin", "Compare each coarse operator with MatPtAP() (a check; costs a general sparse product)", "PCAUXAMG", j->checkgalerkin, &j->checkgalerkin, NULL));
  PetscCall(VPOptionsReal("-pc_auxamg_ktol", "K-cycle: skip the second inner step when the first reduced the residual by this factor", "PCAUXAMG", j->ktol, &j->ktol, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(j->ppc >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_auxamg_points_per_cell must be at least 1, not %g", (double)j->ppc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_AuxAMG(PC pc, PetscViewer viewer)
{
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;
  PetscBool  isascii, isstring;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERSTRING, &isstring));
  if (isstring)
    PetscCall(PetscViewerStringSPrintf(viewer, " %s-cycle, %" PetscInt_FMT " levels, %s", j->cycle == PC_AUXAMG_CYCLE_K ? "K" : "V", j->nlevels,
                                       j->dcycle ? "coarse levels' cycle on the device" : (j->gpu ? "GPU" : (j->dist ? "GPU, set up on the host" : "host"))));
  if (isstring && j->adaptive) PetscCall(PetscViewerStringSPrintf(viewer, ", adaptive tree"));
  if (isstring && j->subscatter) PetscCall(PetscViewerStringSPrintf(viewer, ", gathered on rank 0 from level %" PetscInt_FMT, j->nlevels - 1));
  if (isstring && j->nxsf) PetscCall(PetscViewerStringSPrintf(viewer, ", exchanges: %" PetscInt_FMT " of %" PetscInt_FMT " star forests with device buffers", j->nxdevice, j->nxsf));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (j->adaptive)
    PetscCall(PetscViewerASCIIPrintf(viewer, "auxiliary-grid AMG: %s-cycle, %" PetscInt_FMT " levels, adaptive region tree (at most %d points per finest aggregate), operator complexity %.3f, %s\n", j->cycle == PC_AUXAMG_CYCLE_K ? "K" : "V",
                                     j->nlevels, AUXAMG_TREE_POINTS, (double)j->opcomplexity, j->dist ? "set up on the host, applied on the GPU" : "on the host"));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "auxiliary-grid AMG: %s-cycle, %" PetscInt_FMT " levels, auxiliary grid %" PetscInt_FMT " cells per direction, operator complexity %.3f, %s\n", j->cycle == PC_AUXAMG_CYCLE_K ? "K" : "V", j->nlevels, j->M,
                                     (double)j->opcomplexity, j->gpu ? "on the GPU (coarse levels in ELL)" : (j->dist ? "set up on the host, applied on the GPU" : "on the host")));
  if (j->fullest) PetscCall(PetscViewerASCIIPrintf(viewer, "-pc_auxamg_tree auto: the fullest cell of the uniform grid held %" PetscInt_FMT " points (the adaptive tree above %g)\n", j->fullest, (double)j->fullmax));
  if (j->dcycle) PetscCall(PetscViewerASCIIPrintf(viewer, "coarse levels' cycle on the device, %s, no host synchronization; coarsest level by its dense inverse\n", j->graph ? "one CUDA graph" : "kernels launched one by one"));
  for (PetscInt l = 0; l < j->nlevels; l++) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  level %" PetscInt_FMT ": %" PetscInt_FMT " unknowns, %.0f nonzeros", l, j->nrows[l], (double)j->nnz[l]));
    if (l + 1 < j->nlevels && PCAuxAMGLevelJacobi(j, l))
      PetscCall(PetscViewerASCIIPrintf(viewer, ", damped Jacobi (one sweep before and after the coarse correction, weights 1 / (a_ii + sum |a_ij| / 2))"));
    else if (PCAuxAMGColored(j) && l + 1 < j->nlevels)
      PetscCall(PetscViewerASCIIPrintf(viewer, ", Gauss-Seidel in %" PetscInt_FMT " colors%s", j->ncolors[l], j->adaptive ? " (a greedy coloring of the cells' graph)" : ""));
    else if (l + 1 < j->nlevels)
      PetscCall(PetscViewerASCIIPrintf(viewer, ", Gauss-Seidel by MatSOR() (processor-local sweeps)"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  }
  if (j->nxsf)
    PetscCall(PetscViewerASCIIPrintf(viewer, "exchanges (-pc_auxamg_exchange_device): %" PetscInt_FMT " of %" PetscInt_FMT " star forests hand device buffers to MPI%s\n", j->nxdevice, j->nxsf,
                                     j->nxdevice ? "" : " (the probe found that MPI does not move device memory: staged through host memory)"));
  if (j->subscatter) {
    PetscViewer sv;
    PetscCall(PetscViewerASCIIPrintf(viewer, "level %" PetscInt_FMT " and below gathered on rank 0 (-pc_auxamg_gather_size), K-cycle steps on level %" PetscInt_FMT " on all ranks; on rank 0:\n", j->nlevels - 1, j->nlevels - 1));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerGetSubViewer(viewer, PETSC_COMM_SELF, &sv));
    if (j->sub) PetscCall(PCView(j->sub, sv));
    PetscCall(PetscViewerRestoreSubViewer(viewer, PETSC_COMM_SELF, &sv));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  if (j->coarse) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "coarsest level solver:\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(KSPView(j->coarse, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_AuxAMG(PC pc)
{
  PC_AuxAMG *j = (PC_AuxAMG *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_AuxAMG(pc));
  PetscCall(PetscFree(j->coords));
  PetscCall(PetscFree(j->skey));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSetCoordinates_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAuxAMGGetAggregates - the aggregate of each local unknown of a level of `PCAUXAMG`

  Not Collective

  Input Parameters:
+ pc    - the `PCAUXAMG`, set up
- level - a level that has a coarser one: 0 (the matrix's unknowns) to the number of levels - 2

  Output Parameter:
. agg - for each local unknown of `level`, the global number of its aggregate (the unknown of `level` + 1); destroy it

  Level: developer

  Note:
  The host and the GPU paths number the aggregates alike (by their tree cell), so their index sets can be compared.

.seealso: `PCAUXAMG`
@*/
PetscErrorCode PCAuxAMGGetAggregates(PC pc, PetscInt level, IS *agg)
{
  PC_AuxAMG *j;
  PetscBool  isaux;
  PetscInt  *a, n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(agg, 3);
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCAUXAMG, &isaux));
  PetscCheck(isaux, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCAuxAMGGetAggregates() needs a PCAUXAMG");
  j = (PC_AuxAMG *)pc->data;
  PetscCheck(!j->subscatter || level + 1 < j->nlevels, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Level %" PetscInt_FMT " and the levels below it are gathered on rank 0 (-pc_auxamg_gather_size): give 0 to %" PetscInt_FMT,
             j->nlevels - 1, j->nlevels - 2);
  PetscCheck(level >= 0 && level + 1 < j->nlevels, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Level %" PetscInt_FMT " has no coarser level: give 0 to %" PetscInt_FMT " (set the PC up first)", level, j->nlevels - 2);
  if (j->gpu) {
#if defined(PETSC_HAVE_CUDA)
    n = j->dagg[level].n;
    PetscCall(PetscMalloc1(PetscMax(n, 1), &a));
    PetscCall(AuxAMGCopyToHost_CUDA(a, j->dagg[level].d_agg, sizeof(PetscInt) * n));
#endif
  } else {
    PetscInt rstart;
    PetscCall(MatGetOwnershipRange(j->P[level], &rstart, NULL));
    PetscCall(MatGetLocalSize(j->P[level], &n, NULL));
    PetscCall(PetscMalloc1(PetscMax(n, 1), &a));
    for (PetscInt i = 0; i < n; i++) {
      PetscInt        nc;
      const PetscInt *cols;
      PetscCall(MatGetRow(j->P[level], rstart + i, &nc, &cols, NULL));
      a[i] = cols[0];
      PetscCall(MatRestoreRow(j->P[level], rstart + i, &nc, &cols, NULL));
    }
  }
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)pc), n, a, PETSC_OWN_POINTER, agg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCAUXAMG - "auxamg": unsmoothed aggregation AMG with aggregates from a region tree over an auxiliary structured grid
  on the points' coordinates (Lan, Xu et al., "A parallel auxiliary grid AMG method for GPU"), on the host or the GPU

  Options Database Keys:
+ -pc_auxamg_cycle <k,v>             - K-cycle (default; nonlinear: use `KSPFCG` or `KSPFGMRES` outside) or V-cycle
. -pc_auxamg_max_levels <n>          - most levels (default 25)
. -pc_auxamg_coarse_size <n>         - stop coarsening at this many unknowns (default 100 on the host, where the coarsest level is solved by LU; 4096 on the GPU, by its inverse)
. -pc_auxamg_points_per_cell <p>     - about p points per cell of the auxiliary grid on average (default 1; a level that does not halve the unknowns is skipped)
. -pc_auxamg_ktol <t>                - K-cycle: skip the second inner step when the first reduced the residual by t (default 0.25)
. -pc_auxamg_smoother <auto,colored,local> - Gauss-Seidel colored by the tree (on the adaptive tree by a greedy coloring of the cells' graph) or processor-local sweeps (`MatSOR()`); auto (default): colored except on the adaptive tree on the host
. -pc_auxamg_tree <auto,uniform,adaptive> - the aggregates from a uniform auxiliary grid or from a region tree refined where the points cluster (meshes graded toward a region; set up on the host; its colors from a greedy coloring); auto (default): the adaptive tree where a cell of the uniform grid holds more than 2^(d+2) times the average, with `MATAIJCUSPARSE` more than 2^(d+6) times (the tree is then set up on the host, applied on the device), else the uniform grid
. -pc_auxamg_gpu <bool>              - apply on the GPU when the matrix is a `MATAIJCUSPARSE` (one rank and the uniform grid: the set-up too; default true)
. -pc_auxamg_gather_size <n>         - several ranks on the GPU: gather the first level below the finest of at most n unknowns, and the levels below, on rank 0 (default 65536 times the ranks, 1048576 times the ranks with `-pc_auxamg_exchange_device`)
. -pc_auxamg_coarse_smoother <jacobi,gs> - the levels below the finest: one damped Jacobi sweep before and after the coarse correction (default; one kernel each on the GPU) or the Gauss-Seidel of the finest level
. -pc_auxamg_exchange_device <bool> - several ranks on the GPU: the levels' exchanges (all but the user's matrix's products) hand device buffers to MPI, after a probe that falls back to host staging if MPI does not move device memory (default `-vpatch_exchange_device`, false unless set; for an MPI that moves device memory point to point but fails PETSc's `-use_gpu_aware_mpi` check, e.g. Open MPI with `--mca pml ucx` over a CUDA-enabled UCX, as `config/mpiexec-gpu.sh` starts it)
. -pc_auxamg_gpu_graph <bool>        - GPU path: the coarse levels' cycle as one CUDA graph (default true; false launches its kernels one by one)
- -pc_auxamg_check_galerkin          - compare each coarse operator with `MatPtAP()` (a check)

  Level: intermediate

  Notes:
  The matrix must be assembled and square. The coordinates of its rows come from `PCSetCoordinates()` (as for
  `PCGAMG`), else from the `DM` of the `KSP`, else from the matrix's `DM` (`MatGetDM()`: a matrix of `DMCreateMatrix()`
  on a `DMDA` with `DMDASetUniformCoordinates()`, so an unmodified program that uses `PCGAMG` can select this PC by
  options). The aggregates are the points of one auxiliary cell, then the cells of
  one tree node: the coarsening depends on the geometry only. The finest level smooths with one forward Gauss-Seidel
  sweep before and one backward sweep after the coarse correction, colored by the tree: (r + 1)^d colors where r (1 on
  most meshes) is the farthest offset, in tree cells, between two coupled unknowns, so the cells of a color never
  couple. The levels below it smooth with one damped Jacobi sweep before and after (weights 1 / (a_ii + sum_{j != i}
  |a_ij| / 2)): the K-cycle keeps the iterations of the Gauss-Seidel there (1M unknowns in 2D and 3D: equal counts),
  and on the GPU a sweep is one kernel instead of one per color (-pc_auxamg_coarse_smoother gs: the Gauss-Seidel).

  With a `MATAIJCUSPARSE` matrix on one rank the set-up (aggregates, colors, Galerkin operators summed into the fixed
  (2r + 1)^d-cell pattern, ELL storage) and the cycle run on the GPU and give the host path's aggregates and, up to
  rounding, its iterates; the vectors must be CUDA vectors. There the cycle has no host synchronization: the coarse levels' part of it (everything below level 0) is a fixed sequence of kernels,
  captured once into a CUDA graph, with the K-cycle's inner products reduced and its coefficients computed on the device
  (a second inner step that the first made unnecessary is skipped by a flag its kernels read), and the coarsest level
  (at most 4096 unknowns; a larger one takes the host's LU) solved by its inverse, computed by cuSOLVER at set-up.
  PETSc's `KSPFCG` takes its inner products on the host with CUDA vectors (`VecMTDot()`: 60% of the solve at 10M
  unknowns); as the flexible outer method on the GPU use `KSPFGMRES` (`KSPGCR` needs 2-7x the iterations in 2D).

  On several ranks with a `MATAIJCUSPARSE` matrix the levels are set up on the host as on the host path (the same
  aggregates, colors and coarse operators, which become `MATAIJCUSPARSE`) and applied on the device: the colored
  Gauss-Seidel's colors by a kernel on the diagonal block after the off-rank block's product with the ghosts (only
  the ghosts of the color swept last exchanged before a color), the Jacobi, residuals and transfers by PETSc's device
  operations. With `-pc_auxamg_gather_size 0` it is the host path's cycle, up to rounding. By default the first level
  below the finest of at most 65536 unknowns per rank (1048576 with `-pc_auxamg_exchange_device`) and the levels below
  it are gathered on rank 0, where a `PCAUXAMG` on one rank (the GPU path, its coarse levels' cycle on the device)
  continues the tree from that level; a tree cell split between ranks, two aggregates on the host path, is one unknown
  there. The set-up on the host costs about 0.7 s per million rows per rank (4 ranks); 100M unknowns in 3D take 16
  iterations on 1, 2 and 4 GPUs (bench/RESULTS.md). The solve there is bound by the exchanges of the levels below the
  finest, which the K-cycle visits up to 2^(l-1) times: with an MPI that moves device memory point to point,
  `-pc_auxamg_exchange_device` hands the levels' exchanges device buffers (the user's matrix keeps its own star forest,
  so its products, the outer method's among them, stay as PETSc moves them) and gathers point to point; on 4 H200 it
  made the solve at 1e8 unknowns 1.4x faster in 3D and 1.9x in 2D. `config/mpiexec-gpu.sh` starts such an MPI and sets the option.

  On meshes graded toward a region a uniform auxiliary grid puts many points into the cells there: the iterations grow
  by 6-7 per tenfold refinement (2D, cells about h^2 wide at a corner: 17 to 82 iterations from 289 to 263,169
  unknowns). The adaptive tree takes as aggregates the largest cells of a tree over the points' Morton order that hold
  at most 2 points (level 0), then 2 times more per level in 2D and 2^d in 3D: 13 to 24 iterations there, 26 at 1M
  (bench_auxamg's h^2 grading: 23 at 1M, 25 at 10M on the GPU; the root cell scales with the points' mean spacing, so a
  refined mesh keeps the tree's proportions). The cells are cut by the points of all ranks; a cell's points on each rank
  form one aggregate there. Its cells differ in size, so the Gauss-Seidel's colors come from a greedy coloring of the
  cells' graph (`MatColoring`); on the host it sweeps with `MatSOR()` by default (`-pc_auxamg_smoother auto`: as many
  iterations, within one, in 2.5-5x less time than the colored sweep there). On quasi-uniform meshes it takes 0-2
  iterations more than the uniform grid. By default (`-pc_auxamg_tree auto`) it is taken where the uniform grid's
  fullest cell (its points on one rank) holds more than 2^(d+2) times the average (on quasi-uniform meshes at most 4
  points, on a Q_k node set 3^d, on graded ones 17 or more in 2D). With a `MATAIJCUSPARSE` matrix the threshold is
  2^(d+6) times the average: the tree is set up on the host (about 2 us per unknown, 40x the uniform grid's set-up on
  the device), so it is taken only where the uniform grid's iterations run away (a mesh graded toward a corner with
  cells h^2 wide there: 291 iterations at 10M unknowns in 2D, 25 on the tree); it is then set up on the host and applied
  on the device with the colored sweep (the path of several ranks), on one rank too.

  As the coarse solver of `PCMG` on a `DMQBOX` hierarchy (`-mg_coarse_ksp_type fcg -mg_coarse_pc_type auxamg`) it
  takes the assembled copy of the matrix-free coarse operator and the coarse `DM`'s node coordinates by itself (host
  path; both are made once and kept).

.seealso: `PCGAMG`, `PCSetCoordinates()`, `PCAuxAMGGetAggregates()`
M*/
PETSC_EXTERN PetscErrorCode PCCreate_AuxAMG(PC pc)
{
  PC_AuxAMG *j;

  PetscFunctionBegin;
  PetscCall(PetscNew(&j));
  pc->data                = (void *)j;
  j->cycle                = PC_AUXAMG_CYCLE_K;
  j->maxlevels            = 25;
  j->coarsesize           = PETSC_DETERMINE;
  j->ppc                  = 1;
  j->ktol                 = 0.25;
  j->smoother             = PC_AUXAMG_SMOOTHER_AUTO;
  j->tree                 = PC_AUXAMG_TREE_AUTO;
  j->usegpu               = PETSC_TRUE;
  j->gathersize           = PETSC_DETERMINE;
  j->graph                = PETSC_TRUE;
  j->cjacobi              = PETSC_TRUE;
  j->exchdevice           = VPExchangeDeviceDefault; /* see -pc_auxamg_exchange_device */
  pc->ops->setup          = PCSetUp_AuxAMG;
  pc->ops->apply          = PCApply_AuxAMG;
  pc->ops->reset          = PCReset_AuxAMG;
  pc->ops->destroy        = PCDestroy_AuxAMG;
  pc->ops->setfromoptions = PCSetFromOptions_AuxAMG;
  pc->ops->view           = PCView_AuxAMG;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSetCoordinates_C", PCSetCoordinates_AuxAMG));
  PetscFunctionReturn(PETSC_SUCCESS);
}
