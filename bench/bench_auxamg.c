static char help[] = "Benchmark of the auxiliary-grid AMG (PCAUXAMG) against PETSc's GAMG on the same assembled matrices: P1\n\
finite elements of -lap u = 1, u = 0 on the boundary of the unit square (-dim 2: each square of an n x n grid split\n\
into 2 triangles) or cube (-dim 3: each cube into Kuhn's 6 tetrahedra), the interior vertices moved by up to -perturb\n\
times the spacing (quasi-uniform, shape-regular meshes), one unknown per interior vertex. The matrix is built\n\
straight into CSR arrays (rows in parallel with OpenMP where the compiler has it; no DMPlex: 1e8 unknowns in\n\
seconds), then made an AIJCUSPARSE matrix with -mat_type aijcusparse (the GPU runs) or kept AIJ. On several ranks (one\n\
GPU each) each rank builds its share of the rows, in order (slabs of the grid).\n\
  -dim 2|3 -n n1,n2,...  interior vertices per direction of each mesh's grid\n\
  -domain box|disk|cavity  the unit square / cube (box), a disk (2D: the grid's squares inside the disk of radius\n\
                         1/2 centred in the square, a staircase polygon whose bounding box has empty corners) or the\n\
                         cube with a cavity (3D: the vertices of the closed box [(n+1)/4, 3(n+1)/4]^3 of indices\n\
                         removed, u = 0 on its surface)\n\
  -solvers s1,s2,...     auxamg (FGMRES + PCAUXAMG, K-cycle: a flexible method whose inner products stay on the GPU;\n\
                         PETSc's KSPFCG takes them on the host with CUDA vectors, and its KSPGCR needs 2-7x the\n\
                         iterations in 2D), gamg (CG + GAMG, its defaults), gamg-tuned\n\
                         (CG + GAMG without smoothing of the prolongation and with aggressive coarsening off: a cheaper set-up)\n\
  -perturb a             move the interior vertices by up to a times the spacing per direction (default 0.2 in 2D,\n\
                         0.15 in 3D; a mesh with a simplex turned inside out stops with an error)\n\
  -grade g -grade_offset a  (box) move every point x to x ((a + |x|_inf) / (a + 1))^(g - 1): a shape-regular mesh\n\
                         graded toward the corner 0 (default g = 1: none). a = 0: the cells there about h^g wide, their\n\
                         ratio to the far side's grows as the mesh is refined; a > 0: a fixed ratio, about\n\
                         g (1 + 1/a)^(g - 1)\n\
  -rtol r                relative residual to stop at (default 1e-8; the paper's is 1e-6)\n\
  -repeats r             timed solves after a warm-up (median)\n\
Options of a solver go with its prefix (auxamg_, gamg_, gamg_tuned_). Each run prints a JSON line: unknowns,\n\
nonzeros, iterations (its; its_1e-6: those to a 1e-6 relative residual, seen in the same solve, -1 if not reached),\n\
KSPSetUp time (the PC's whole set-up), median solve time, the true relative residual, and the device memory in use\n\
(GB) before the set-up and after the solves. A solve that does not converge or a set-up that fails (e.g. out of\n\
memory) is reported in the JSON line and makes the program exit non-zero at the end.\n\n";

#include <petscksp.h>
#include "vpsolve.h" /* VPSolveSync(), VPSolveTimed() */

/* the mesh: an n^dim grid of interior vertices (0..n+1 per direction with the boundary), each square split into 2
   triangles or each cube into Kuhn's 6 tetrahedra, on one of the domains below; interior vertices moved by up to amp
   times the spacing */
typedef enum {
  DOMAIN_BOX,   /* the unit square / cube */
  DOMAIN_DISK,  /* 2D: the disk of radius 1/2 centred in the square: the grid's squares inside it (a staircase polygon) */
  DOMAIN_CAVITY /* 3D: the unit cube without the closed box [a, b]^3 of vertex indices (about (1/4, 3/4)^3) */
} Domain;
static const char *const Domains[] = {"box", "disk", "cavity", "Domain", "DOMAIN_", NULL};

typedef struct {
  PetscInt  dim, n, a, b;   /* a, b: the cavity's vertex index range */
  PetscReal amp, grade, ga; /* the box's points x mapped to x ((ga + |x|_inf) / (ga + 1))^(grade - 1) (grade 1: none) */
  Domain    domain;
} Mesh;

/* whether vertex v (0..n+1 per direction) is on the cavity's closed box (its surface vertices carry u = 0) */
static inline PetscBool InCavity(const Mesh *m, const PetscInt v[3])
{
  if (m->domain != DOMAIN_CAVITY) return PETSC_FALSE;
  for (PetscInt d = 0; d < m->dim; d++)
    if (v[d] < m->a || v[d] > m->b) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* whether vertex v carries an unknown: inside the square / cube, not on the cavity's closed box, and (disk) every
   square around it inside the disk (the vertices of kept squares that are not unknowns carry u = 0) */
static inline PetscBool Unknown(const Mesh *m, const PetscInt v[3])
{
  for (PetscInt d = 0; d < m->dim; d++)
    if (v[d] < 1 || v[d] > m->n) return PETSC_FALSE;
  if (m->domain == DOMAIN_DISK) {
    const PetscReal h = 1.0 / (m->n + 1);
    for (PetscInt a = -1; a <= 1; a++)
      for (PetscInt b = -1; b <= 1; b++) {
        PetscReal x = (v[0] + a) * h - 0.5, y = (v[1] + b) * h - 0.5;
        if (x * x + y * y > 0.25) return PETSC_FALSE;
      }
  }
  return InCavity(m, v) ? PETSC_FALSE : PETSC_TRUE;
}

/* the position X of vertex v (0..n+1 per direction): the unknowns' vertices moved, the boundary's not */
static inline void Coord(const Mesh *m, const PetscInt v[3], PetscReal X[3])
{
  const PetscReal h     = 1.0 / (m->n + 1);
  const PetscBool fixed = Unknown(m, v) ? PETSC_FALSE : PETSC_TRUE;

  for (PetscInt d = 0; d < 3; d++) {
    PetscReal t = PetscSinReal(12.9898 * v[0] + 78.233 * v[1] + 37.719 * v[2] + 11.0 * d) * 43758.5453;
    X[d]        = d < m->dim ? v[d] * h + (fixed ? 0 : m->amp * h * (2 * (t - PetscFloorReal(t)) - 1)) : 0;
  }
  if (m->grade != 1) { /* onto the same box, cells shrinking toward the corner 0 (aspect ratios at most grade) */
    PetscReal s = PetscMax(X[0], PetscMax(X[1], X[2])), f = PetscPowReal((m->ga + s) / (m->ga + 1), m->grade - 1);
    for (PetscInt d = 0; d < 3; d++) X[d] *= f;
  }
}

/* stiffness entries K[p][q] of the P1 simplex with vertices X (dim + 1 of them); returns the signed volume factor det
   (its sign is the orientation: compare it with the unmoved simplex's) */
static PetscReal Stiffness(PetscInt dim, PetscReal X[4][3], PetscReal K[4][4])
{
  PetscReal J[3][3], G[3][3], det, grad[4][3] = {{0}}, vol;

  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt b = 0; b < dim; b++) J[a][b] = X[b + 1][a] - X[0][a]; /* column b: edge b */
  if (dim == 2) {
    det     = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    G[0][0] = J[1][1] / det;
    G[0][1] = -J[0][1] / det;
    G[1][0] = -J[1][0] / det;
    G[1][1] = J[0][0] / det;
    vol     = PetscAbsReal(det) / 2;
  } else {
    det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) + J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt b = 0; b < 3; b++) {
        PetscInt a1 = (a + 1) % 3, a2 = (a + 2) % 3, b1 = (b + 1) % 3, b2 = (b + 2) % 3;
        G[b][a] = (J[a1][b1] * J[a2][b2] - J[a1][b2] * J[a2][b1]) / det; /* inverse: cofactor transposed */
      }
    vol = PetscAbsReal(det) / 6;
  }
  /* the gradient of barycentric b + 1 is row b of J^-1; of barycentric 0 minus their sum */
  for (PetscInt a = 0; a < dim; a++) {
    grad[0][a] = 0;
    for (PetscInt b = 0; b < dim; b++) {
      grad[b + 1][a] = G[b][a];
      grad[0][a] -= G[b][a];
    }
  }
  for (PetscInt p = 0; p <= dim; p++)
    for (PetscInt q = 0; q <= dim; q++) {
      PetscReal s = 0;
      for (PetscInt a = 0; a < dim; a++) s += grad[p][a] * grad[q][a];
      K[p][q] = vol * s;
    }
  return det;
}

/* the simplices of a square (2) or a cube (6, Kuhn's: the paths 000 -> 111 along the axes), vertices as corner bits */
static const PetscInt Tri[2][3] = {{0, 1, 3}, {0, 3, 2}};
static const PetscInt Tet[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
/* the neighbour offsets of a vertex (itself included), in increasing order of the column */
static const PetscInt Off2[7][3]  = {{-1, -1, 0}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
static const PetscInt Off3[15][3] = {{-1, -1, -1}, {0, -1, -1}, {-1, 0, -1}, {0, 0, -1}, {-1, -1, 0}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};

/* the rows of the unknowns (in the order of the vertex index (i-1) + n (j-1) + n^2 (k-1)), this rank's share of them
   (*r0 .. *r0 + *nloc - 1, the ranks in order, PetscSplitOwnership()): CSR (ia, ja with global columns, va) and
   coordinates xy; *N all rows */
static PetscErrorCode Assemble(const Mesh *m, PetscInt **ia, PetscInt **ja, PetscScalar **va, PetscReal **xy, PetscInt *N, PetscInt *r0p, PetscInt *nlocp)
{
  const PetscInt dim = m->dim, n = m->n, nn = dim == 2 ? 7 : 15, ns = dim == 2 ? 2 : 6, nv = dim + 1;
  const PetscInt(*off)[3] = dim == 2 ? Off2 : Off3;
  const PetscInt nvert    = dim == 2 ? n * n : n * n * n;
  PetscInt       nr       = 0, *row, *vert; /* row[vertex index]: its row or -1; vert[row]: its vertex index */
  PetscReal      orient[6];                 /* the sign of each simplex's det before the vertices move */
  PetscReal     *xyz;                       /* every vertex's position (0..n+1 per direction), computed once */
  const size_t   n2 = (size_t)(n + 2), nall = dim == 2 ? n2 * n2 : n2 * n2 * n2;
  PetscInt       nfolded = 0;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < ns; s++) {
    PetscReal X[4][3], K[4][4];
    for (PetscInt q = 0; q < nv; q++)
      for (PetscInt d = 0; d < 3; d++) X[q][d] = ((dim == 2 ? Tri[s][q] : Tet[s][q]) >> d) & 1;
    orient[s] = Stiffness(dim, X, K) > 0 ? 1 : -1;
  }
  PetscCall(PetscMalloc2(nvert, &row, nvert, &vert));
  for (PetscInt f = 0; f < nvert; f++) {
    PetscInt v[3] = {f % n + 1, (f / n) % n + 1, dim == 3 ? f / (n * n) + 1 : 0};
    row[f]        = Unknown(m, v) ? nr : -1;
    if (row[f] >= 0) vert[nr++] = f;
  }
  *N = nr;
  {
    PetscInt nloc = PETSC_DECIDE, r0 = 0;
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &nloc, &nr));
    PetscCallMPI(MPI_Exscan(&nloc, &r0, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    *r0p   = r0;
    *nlocp = nloc;
  }
  const PetscInt r0 = *r0p, nl = *nlocp;
  { /* the positions of the vertices this rank's rows touch: the layers (of the slowest direction) of its rows and one
       on either side (the other layers' pages are never touched) */
    const PetscInt nd = dim == 3 ? n * n : n, f0 = nl ? vert[r0] : 0, f1 = nl ? vert[r0 + nl - 1] : 0;
    const PetscInt slo = f0 / nd, shi = f1 / nd + 2; /* vertex f's layer is f / n^(d-1) + 1 */
    PetscCall(PetscMalloc1(3 * nall, &xyz));
#pragma omp parallel for schedule(static)
    for (size_t g = 0; g < nall; g++) {
      PetscInt v[3] = {(PetscInt)(g % n2), (PetscInt)((g / n2) % n2), dim == 3 ? (PetscInt)(g / (n2 * n2)) : 0};
      if (v[dim - 1] < slo || v[dim - 1] > shi) continue;
      Coord(m, v, &xyz[3 * g]);
    }
  }
  PetscCall(PetscMalloc1(nl + 1, ia));
  PetscCall(PetscMalloc1((size_t)dim * PetscMax(nl, 1), xy));
  (*ia)[0] = 0;
#pragma omp parallel for schedule(static)
  for (PetscInt rl = 0; rl < nl; rl++) { /* the row lengths and the coordinates */
    PetscInt  r = r0 + rl, f = vert[r], v[3] = {f % n + 1, (f / n) % n + 1, dim == 3 ? f / (n * n) + 1 : 0}, c = 0;
    PetscReal X[3];
    for (PetscInt o = 0; o < nn; o++) {
      PetscInt w[3] = {v[0] + off[o][0], v[1] + off[o][1], v[2] + (dim == 3 ? off[o][2] : 0)};
      c += Unknown(m, w);
    }
    (*ia)[rl + 1] = c;
    for (PetscInt d = 0; d < 3; d++) X[d] = xyz[3 * (v[0] + n2 * (v[1] + n2 * v[2])) + d];
    for (PetscInt d = 0; d < dim; d++) (*xy)[dim * rl + d] = X[d];
  }
  for (PetscInt rl = 0; rl < nl; rl++) (*ia)[rl + 1] += (*ia)[rl];
  PetscCall(PetscMalloc1(PetscMax((*ia)[nl], 1), ja));
  PetscCall(PetscMalloc1(PetscMax((*ia)[nl], 1), va));
  /* each row from the simplices around its vertex (none of them in the cavity: the vertex is outside its closed box) */
#pragma omp parallel for schedule(static) reduction(+ : nfolded)
  for (PetscInt rl = 0; rl < nl; rl++) {
    PetscInt    r = r0 + rl, f = vert[r], v[3] = {f % n + 1, (f / n) % n + 1, dim == 3 ? f / (n * n) + 1 : 0}, pos[15], c = (*ia)[rl];
    PetscScalar rowv[15];
    for (PetscInt o = 0; o < nn; o++) {
      PetscInt w[3] = {v[0] + off[o][0], v[1] + off[o][1], v[2] + (dim == 3 ? off[o][2] : 0)};
      pos[o]        = Unknown(m, w) ? c : -1;
      rowv[o]       = 0;
      if (pos[o] >= 0) (*ja)[c++] = row[(w[0] - 1) + n * (w[1] - 1) + (dim == 3 ? n * n * (w[2] - 1) : 0)];
    }
    for (PetscInt b = 0; b < (1 << dim); b++) { /* the square / cube whose corner b is this vertex */
      PetscInt base[3] = {v[0] - (b & 1), v[1] - ((b >> 1) & 1), dim == 3 ? v[2] - ((b >> 2) & 1) : 0};
      for (PetscInt s = 0; s < ns; s++) {
        const PetscInt *S = dim == 2 ? Tri[s] : Tet[s];
        PetscInt        p = -1;
        PetscReal       X[4][3], K[4][4];
        for (PetscInt q = 0; q < nv; q++)
          if (S[q] == b) p = q;
        if (p < 0) continue;
        for (PetscInt q = 0; q < nv; q++) {
          PetscInt w[3] = {base[0] + (S[q] & 1), base[1] + ((S[q] >> 1) & 1), dim == 3 ? base[2] + ((S[q] >> 2) & 1) : 0};
          for (PetscInt d = 0; d < 3; d++) X[q][d] = xyz[3 * (w[0] + n2 * (w[1] + n2 * w[2])) + d];
        }
        if (Stiffness(dim, X, K) * orient[s] <= 0) nfolded++; /* a moved vertex turned it inside out */
        for (PetscInt q = 0; q < nv; q++) {
          PetscInt o3[3] = {(S[q] & 1) - (b & 1), ((S[q] >> 1) & 1) - ((b >> 1) & 1), dim == 3 ? ((S[q] >> 2) & 1) - ((b >> 2) & 1) : 0};
          for (PetscInt o = 0; o < nn; o++)
            if (off[o][0] == o3[0] && off[o][1] == o3[1] && off[o][2] == o3[2]) rowv[o] += K[p][q];
        }
      }
    }
    for (PetscInt o = 0; o < nn; o++)
      if (pos[o] >= 0) (*va)[pos[o]] = rowv[o];
  }
  PetscCall(PetscFree2(row, vert));
  PetscCall(PetscFree(xyz));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nfolded, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(!nfolded, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-perturb %g turns simplices inside out on this mesh (%" PetscInt_FMT " of them, counted at each of their vertices): give a smaller -perturb", (double)m->amp, nfolded);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the first iteration whose residual norm is at most 1e-6 of the initial one (the paper's stopping test), seen in the
   same solve that runs on to -rtol */
typedef struct {
  PetscReal r0;
  PetscInt  its6;
} Its6;

static PetscErrorCode MonitorIts6(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  Its6 *m = (Its6 *)ctx;

  PetscFunctionBeginUser;
  if (it == 0) {
    m->r0   = rnorm;
    m->its6 = -1;
  }
  if (m->its6 < 0 && rnorm <= 1e-6 * m->r0) m->its6 = it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal DeviceGB(void)
{
#if defined(PETSC_HAVE_CUDA)
  size_t f, t;
  if (cudaMemGetInfo(&f, &t) == cudaSuccess) return (PetscReal)(t - f) / 1e9;
#endif
  return -1;
}

static PetscBool device = PETSC_FALSE; /* a CUDA matrix: synchronize the device around the timers */

/* one solver on A: set-up and solves timed; returns whether it converged (failures of the set-up are caught) */
static PetscErrorCode RunSolver(Mat A, PetscInt dim, PetscInt N, PetscInt nloc, PetscReal *xy, const char *name, PetscReal rtol, PetscInt repeats, PetscInt n, const char *domain, PetscBool *ok)
{
  KSP                ksp;
  PC                 pc;
  Vec                x, b, r;
  char               prefix[64];
  PetscReal          tset = 0, tsolve = 0, rn, bn, gb0 = DeviceGB(), gb1;
  PetscInt           its    = 0;
  Its6               its6   = {0, -1};
  KSPConvergedReason reason = KSP_DIVERGED_ITS;
  PetscErrorCode     ierr;
  MatInfo            info;
  PetscLogDouble     t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", name));
  for (char *c = prefix; *c; c++)
    if (*c == '-') *c = '_';
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, rtol, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPGetPC(ksp, &pc));
  if (!strcmp(name, "auxamg")) {
    PetscCall(KSPSetType(ksp, KSPFGMRES));
    PetscCall(PCSetType(pc, PCAUXAMG));
  } else {
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(PCSetType(pc, PCGAMG));
    if (!strcmp(name, "gamg-tuned")) {
      PetscCall(PCGAMGSetNSmooths(pc, 0));
      PetscCall(PCGAMGSetAggressiveLevels(pc, 0));
    }
  }
  PetscCall(PCSetCoordinates(pc, dim, nloc, xy));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPMonitorSet(ksp, MonitorIts6, &its6, NULL));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  PetscCall(VPSolveSync(device));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = KSPSetUp(ksp);
  if (!ierr) ierr = VPSolveSync(device);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscTime(&t1));
  tset = t1 - t0;
  *ok  = PETSC_FALSE;
  if (ierr) {
    const char *text;
    PetscCall(PetscErrorMessage(ierr, &text, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "{\"solver\": \"%s\", \"dim\": %" PetscInt_FMT ", \"domain\": \"%s\", \"n\": %" PetscInt_FMT ", \"unknowns\": %" PetscInt_FMT ", \"nonzeros\": %.0f, \"status\": \"set-up failed (error %d: %s) after %.3f s\"}\n", name, dim,
                          domain, n, N, info.nz_used, (int)ierr, text, (double)tset));
  } else {
    PetscCall(VPSolveTimed(ksp, b, x, repeats, device, &tsolve));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatResidual(A, b, x, r));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    gb1 = DeviceGB();
    *ok = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "{\"solver\": \"%s\", \"dim\": %" PetscInt_FMT ", \"domain\": \"%s\", \"n\": %" PetscInt_FMT ", \"unknowns\": %" PetscInt_FMT ", \"nonzeros\": %.0f, \"its\": %" PetscInt_FMT ", \"its_1e-6\": %" PetscInt_FMT
                          ", \"reason\": \"%s\", \"setup_s\": %.4f, \"solve_s\": %.4f, \"total_s\": %.4f, \"rel_residual\": %.2e, \"device_gb_before\": %.2f, \"device_gb_after\": %.2f}\n",
                          name, dim, domain, n, N, info.nz_used, its, its6.its6, KSPConvergedReasons[reason], (double)tset, (double)tsolve, (double)(tset + tsolve), (double)(rn / bn), (double)gb0, (double)gb1));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, ns = 16, nsol = 8, repeats = 3, sizes[16] = {1000};
  char       *solvers[8], mtype[64] = MATAIJ;
  PetscReal   amp, grade = 1, ga = 0, rtol = 1e-8;
  PetscBool   set, allok = PETSC_TRUE;
  Domain      domain = DOMAIN_BOX;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3");
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-n", sizes, &ns, &set));
  if (!set) ns = 1;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-solvers", solvers, &nsol, &set));
  if (!set) {
    nsol = 1;
    PetscCall(PetscStrallocpy("auxamg", &solvers[0]));
  }
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-domain", Domains, (PetscEnum *)&domain, NULL));
  PetscCheck(domain != DOMAIN_DISK || dim == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-domain disk is a 2D domain: give -dim 2 (or -domain cavity in 3D)");
  PetscCheck(domain != DOMAIN_CAVITY || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-domain cavity is a 3D domain: give -dim 3 (or -domain disk in 2D)");
  amp = dim == 3 ? 0.15 : 0.2; /* 0.2 folds a few of Kuhn's tetrahedra from about 2e7 vertices on */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-grade", &grade, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-grade_offset", &ga, NULL));
  PetscCheck(ga >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-grade_offset must not be negative");
  PetscCheck(grade >= 1 && grade <= 4, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-grade must be in [1, 4], not %g", (double)grade);
  PetscCheck(grade == 1 || domain == DOMAIN_BOX, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-grade applies to -domain box only");
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-perturb", &amp, NULL));
  PetscCheck(amp >= 0 && amp < 0.5, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-perturb must be in [0, 0.5)");
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &repeats, NULL));
  PetscCheck(repeats >= 1 && repeats <= 32, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeats must be 1 to 32");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mtype, sizeof(mtype), NULL));
  {
    char *found;
    PetscCall(PetscStrstr(mtype, "cusparse", &found));
    device = found ? PETSC_TRUE : PETSC_FALSE;
  }
  for (PetscInt s = 0; s < nsol; s++) {
    PetscBool known;
    PetscCall(PetscStrInList(solvers[s], "auxamg,gamg,gamg-tuned", ',', &known));
    PetscCheck(known, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown solver %s: give auxamg, gamg or gamg-tuned", solvers[s]);
  }
  for (PetscInt i = 0; i < ns; i++) {
    PetscInt      *ia, *ja, N = 0, r0 = 0, nloc = 0;
    PetscScalar   *va;
    PetscReal     *xy;
    Mat            A0, A;
    PetscLogDouble t0, t1;
    Mesh           mesh = {dim, sizes[i], (sizes[i] + 1) / 4, (3 * (sizes[i] + 1)) / 4, amp, grade, ga, domain};
    char           label[64];

    PetscCheck(sizes[i] >= (domain == DOMAIN_CAVITY ? 7 : 2), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n: at least %d interior vertices per direction on this domain", domain == DOMAIN_CAVITY ? 7 : 2);
    PetscCall(PetscTime(&t0));
    if (grade != 1)
      PetscCall(PetscSNPrintf(label, sizeof(label), "%s graded %g offset %g", Domains[domain], (double)grade, (double)ga));
    else
      PetscCall(PetscStrncpy(label, Domains[domain], sizeof(label)));
    PetscCall(Assemble(&mesh, &ia, &ja, &va, &xy, &N, &r0, &nloc));
    if (size == 1)
      PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, N, N, ia, ja, va, &A0));
    else
      PetscCall(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, nloc, nloc, N, N, ia, ja, va, &A0)); /* copies */
    PetscCall(MatConvert(A0, mtype, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatDestroy(&A0));
    PetscCall(PetscFree(ia));
    PetscCall(PetscFree(ja));
    PetscCall(PetscFree(va));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# mesh %" PetscInt_FMT "^%" PetscInt_FMT " grid, domain %s (%" PetscInt_FMT " unknowns), %s, built in %.2f s\n", sizes[i], dim, label, N, mtype, (double)(t1 - t0)));
    for (PetscInt s = 0; s < nsol; s++) {
      PetscBool ok = PETSC_FALSE;
      PetscCall(RunSolver(A, dim, N, nloc, xy, solvers[s], rtol, repeats, sizes[i], label, &ok));
      if (!ok) allok = PETSC_FALSE;
    }
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(xy));
  }
  for (PetscInt s = 0; s < nsol; s++) PetscCall(PetscFree(solvers[s]));
  PetscCall(PetscFinalize());
  return allok ? 0 : 1;
}
