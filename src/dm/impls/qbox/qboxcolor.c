/*
  DMQBOX: the exchange of each patch color in the multiplicative sweep on several ranks.

  Each rank solves the patches of its own vertices in place in its local vector. The nodes of its local box that
  the patches of color c of other ranks change are then stale; after the color, one exchange brings every changed
  value to every rank that holds it, owned or ghost. A node lies in the interior of at most one patch of a color, so
  the values a rank receives and those it sends are disjoint sets of its local box.

  Both sides know from the box decomposition which nodes they exchange: the sender (the owner of the patch's vertex)
  lists, per receiving rank, the nodes of its own patches' interiors that lie in the receiver's local box; the
  receiver lists, per sending rank, the nodes of its local box in the interiors of that rank's patches. Both lists
  are in global lexicographic order, so they match entry by entry, and neither needs an index from the other side.
  Colors that need no exchange between them share one (DMQBoxColorGroupBits_Private()): a patch changes the nodes
  within one cell of its vertex only and reads those within one cell, so a patch of color c2 reads what one of color
  c1 changed only where their vertices differ by at most one along every direction. Where c1 and c2 have the same
  parity bit along every direction the process grid cuts, their vertices are then equal along the cut directions and
  lie in one process column along the others: the two patches belong to one rank. So consecutive colors of a sweep
  that agree in the bits of the cut directions form a group whose exchange can wait until the group's last color: the
  colors c with the same c >> b, b the lowest cut direction (b = dim where none is cut). For slabs along the slowest
  direction (2 ranks in 3D) the 8 exchanges of a sweep become 2, with iterates equal to one rank's. Within a group
  a node lies in the interior of patches of one rank only, so sent and received values stay disjoint; a node that
  several of the group's colors change is sent once, with its value after the group.

  The values travel packed (qboxpacked.c): a gather into a send buffer, a PetscSF over whole chunks of values between
  the contiguous buffers, and a scatter from the receive buffer; set-up per chunk, not per value.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscsf.h>

/* the patch vertex of parity bit of color c along a direction whose patch interior holds node p: the interior of the
   patch of vertex v is (v - 1, v + 1) k, so p lies in at most two, of consecutive vertices; -1: none, or not interior.
   bit 2: either parity (a direction the process grid does not cut, in a group of colors): a vertex of either */
static PetscInt QBoxColorVertex(PetscInt p, PetscInt k, PetscInt N, PetscInt bit)
{
  PetscInt v = p / k;
  if (bit == 2) { /* patch v = p / k holds p (p = v k: only it), except p < k: patch 1 */
    v = PetscMax(v, 1);
    return p > 0 && v <= N - 1 ? v : -1;
  }
  if (p % k && v % 2 != bit) v++;
  if (v % 2 != bit || v < 1 || v > N - 1) return -1;
  return v;
}

/*
  DMQBoxColorGroupBits_Private - the colors whose exchanges one exchange covers (see the top of this file): colors c1,
  c2 with c1 >> b == c2 >> b, b the lowest direction the process grid cuts (dim where none is). Consecutive colors of
  a sweep, forward or backward, in one group need no exchange between them.
*/
PetscInt DMQBoxColorGroupBits_Private(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt b = 0;

  while (b < q->dim && q->procs[b] == 1) b++;
  return b;
}

/* the exchange of the group of color c */
static DMQBoxColorExchange *QBoxColorExchangeOf(DM dm, PetscInt c)
{
  return &((DM_QBox *)dm->data)->colorx[c >> DMQBoxColorGroupBits_Private(dm)];
}

/* appends to a row plan the triple (side: 0 receive, 1 send; the slot of peer r; run i); pass 0 adds the peer */
static PetscErrorCode QBoxPlanAdd(DMQBoxPeers *p, PetscInt side, PetscMPIInt r, PetscInt i, PetscInt pass, PetscInt *plan, PetscInt *nplan)
{
  PetscInt s;

  PetscFunctionBegin;
  if (pass == 0)
    PetscCall(DMQBoxPeersAdd_Private(p, r, &s));
  else
    s = DMQBoxPeersFind_Private(p, r);
  plan[(*nplan)++] = side;
  plan[(*nplan)++] = s;
  plan[(*nplan)++] = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per direction, for each node of the local box: the vertex of the color whose patch interior holds it (-1: none), the
   column owning that vertex, and the range of columns whose local boxes hold the node */
typedef struct {
  PetscInt *vert[3], *own[3], *clo[3], *chi[3];
} QBoxColorMaps;

static PetscErrorCode QBoxColorMapsCreate(DM dm, const DMQBoxColumns *c, PetscInt color, QBoxColorMaps *m)
{
  const VPGrid  *g  = &((DM_QBox *)dm->data)->grid;
  const PetscInt gb = DMQBoxColorGroupBits_Private(dm); /* the directions below gb: every parity of the group */

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    PetscCall(PetscMalloc4(g->gxm[d], &m->vert[d], g->gxm[d], &m->own[d], g->gxm[d], &m->clo[d], g->gxm[d], &m->chi[d]));
    for (PetscInt i = 0; i < g->gxm[d]; i++) {
      const PetscInt p = g->gxs[d] + i, o = DMQBoxColumnOf_Private(c, d, 0, p), *b = c->b[d];
      PetscInt       lo = o, hi = o;

      m->vert[d][i] = d < g->dim ? QBoxColorVertex(p, g->k, g->N[d], d < gb ? 2 : (color >> d) & 1) : 0;
      m->own[d][i]  = m->vert[d][i] < 0 ? -1 : DMQBoxColumnOf_Private(c, d, 4, m->vert[d][i]);
      while (lo > 0 && p >= b[6 * (lo - 1) + 2] && p < b[6 * (lo - 1) + 2] + b[6 * (lo - 1) + 3]) lo--;
      while (hi < c->P[d] - 1 && p >= b[6 * (hi + 1) + 2] && p < b[6 * (hi + 1) + 2] + b[6 * (hi + 1) + 3]) hi++;
      m->clo[d][i] = lo;
      m->chi[d][i] = hi;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode QBoxColorMapsDestroy(QBoxColorMaps *m)
{
  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree4(m->vert[d], m->own[d], m->clo[d], m->chi[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both lists, in two passes each (count, then fill). Receive: the nodes of the local box in the interior of a patch
   of the color whose vertex another rank owns, by owner. Send: the nodes in the interior of this rank's own patches
   of the color, by every other rank whose local box holds them. Along x the nodes of the patch interiors (xall) fall
   into runs of equal owner column and column range. A row's plan (which runs go to or come from which peer) depends
   only on its y and z owner columns and column ranges, so it is made once per change of those, and each row is a
   plain copy of its runs' positions. In a row that this rank's column owns in y and z and no other column holds,
   only the runs that another column owns or holds take part, which keeps the work O(nodes near the faces); the lists
   are made as runs of consecutive indices (DMQBoxPackedAddRun_Private()), a stretch of consecutive x of a run each. */
static PetscErrorCode QBoxColorLists(DM dm, const DMQBoxColumns *c, const QBoxColorMaps *m, PetscMPIInt rank, DMQBoxPeers *send, DMQBoxPeers *recv, DMQBoxColorExchange *x)
{
  const VPGrid *g    = &((DM_QBox *)dm->data)->grid;
  PetscInt      nall = 0, nrun = 0, nseg = 0, *xall, *run, *seg, *segat, *plan, nplan = 0;

  PetscFunctionBegin;
  send->n = recv->n = 0;
  PetscCall(PetscMalloc5(g->gxm[0], &xall, g->gxm[0] + 1, &run, g->gxm[0] + 1, &seg, g->gxm[0] + 1, &segat, 3 * 27 * g->gxm[0] + 1, &plan));
  for (PetscInt ix = 0; ix < g->gxm[0]; ix++) {
    if (m->vert[0][ix] < 0) continue;
    if (!nall || m->own[0][ix] != m->own[0][xall[nall - 1]] || m->clo[0][ix] != m->clo[0][xall[nall - 1]] || m->chi[0][ix] != m->chi[0][xall[nall - 1]]) { /* a new run */
      seg[nrun]     = nseg;
      run[nrun++]   = nall;
      segat[nseg++] = nall;
    } else if (ix != xall[nall - 1] + 1)
      segat[nseg++] = nall; /* a new stretch of consecutive x in the run */
    xall[nall++] = ix;
  }
  run[nrun]   = nall; /* run i: xall[run[i] .. run[i + 1]), its stretches j = seg[i] .. seg[i + 1] - 1: xall[segat[j] .. segat[j + 1]) */
  seg[nrun]   = nseg;
  segat[nseg] = nall;
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscInt key[6] = {-1, -1, -1, -1, -1, -1};

    for (PetscInt iz = 0; iz < g->gxm[2]; iz++) {
      if (m->vert[2][iz] < 0) continue;
      for (PetscInt iy = 0; iy < g->gxm[1]; iy++) {
        const PetscInt row = (iz * g->gxm[1] + iy) * g->gxm[0];

        if (m->vert[1][iy] < 0) continue;
        if (key[0] != m->own[1][iy] || key[1] != m->clo[1][iy] || key[2] != m->chi[1][iy] || key[3] != m->own[2][iz] || key[4] != m->clo[2][iz] || key[5] != m->chi[2][iz]) {
          /* a new plan: triples (side: 0 receive, 1 send; peer slot; run) */
          const PetscBool inner = (PetscBool)(m->own[1][iy] == c->me[1] && m->own[2][iz] == c->me[2] && m->clo[1][iy] == m->chi[1][iy] && m->clo[2][iz] == m->chi[2][iz]);

          key[0] = m->own[1][iy];
          key[1] = m->clo[1][iy];
          key[2] = m->chi[1][iy];
          key[3] = m->own[2][iz];
          key[4] = m->clo[2][iz];
          key[5] = m->chi[2][iz];
          nplan  = 0;
          for (PetscInt i = 0; i < nrun; i++) {
            const PetscInt    x0 = xall[run[i]];
            const PetscMPIInt o  = (PetscMPIInt)(m->own[0][x0] + c->P[0] * (key[0] + c->P[1] * key[3]));

            if (inner && m->own[0][x0] == c->me[0] && m->clo[0][x0] == m->chi[0][x0]) continue; /* nothing to exchange */
            if (o != rank) {                                                                    /* received from the owner of the patch */
              PetscCall(QBoxPlanAdd(recv, 0, o, i, pass, plan, &nplan));
              continue;
            }
            for (PetscInt cz = key[4]; cz <= key[5]; cz++) /* sent to every other rank that holds it */
              for (PetscInt cy = key[1]; cy <= key[2]; cy++)
                for (PetscInt cx = m->clo[0][x0]; cx <= m->chi[0][x0]; cx++) {
                  const PetscMPIInt r = (PetscMPIInt)(cx + c->P[0] * (cy + c->P[1] * cz));
                  if (r != rank) PetscCall(QBoxPlanAdd(send, 1, r, i, pass, plan, &nplan));
                }
          }
        }
        for (PetscInt e = 0; e < nplan; e += 3) {
          DMQBoxPeers   *p = plan[e] ? send : recv;
          const PetscInt s = plan[e + 1], a = run[plan[e + 2]], b = run[plan[e + 2] + 1];

          if (pass == 1) /* the run's stretches of consecutive x as runs of the list (0 send, 1 receive) */
            for (PetscInt j = seg[plan[e + 2]]; j < seg[plan[e + 2] + 1]; j++) {
              const PetscInt j0 = segat[j], j1 = segat[j + 1];

              PetscCall(DMQBoxPackedAddRun_Private(x, plan[e] ? 0 : 1, p->start[s] + p->fill[s], row + xall[j0], j1 - j0));
              p->fill[s] += j1 - j0;
            }
          else
            p->count[s] += b - a;
        }
      }
    }
    if (pass == 0) PetscCall(DMQBoxPackedAllocLists_Private(send, recv, x));
  }
  PetscCall(PetscFree5(xall, run, seg, segat, plan));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxColorExchangeSetUp_Private - the lists and the star forest of the group of color `color` (collective; the
  group of DMQBoxColorGroupBits_Private(), one color where every direction is cut); made once, on first use, in
  O(nodes near the rank's faces)
*/
PetscErrorCode DMQBoxColorExchangeSetUp_Private(DM dm, PetscInt color)
{
  DM_QBox             *q = (DM_QBox *)dm->data;
  DMQBoxColorExchange *x;
  DMQBoxColumns        c;
  QBoxColorMaps        m;
  DMQBoxPeers          send = {0}, recv = {0};
  PetscMPIInt          rank;
  char                 what[64];

  PetscFunctionBegin;
  PetscCheck(color >= 0 && color < (1 << q->dim), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Color %" PetscInt_FMT " is not one of the %d patch colors", color, 1 << q->dim);
  x = QBoxColorExchangeOf(dm, color);
  if (x->sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(VPATCH_ColorSetUp, dm, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  PetscCall(DMQBoxColumnsCreate_Private(dm, &c));
  PetscCall(QBoxColorMapsCreate(dm, &c, color, &m));
  PetscCall(QBoxColorLists(dm, &c, &m, rank, &send, &recv, x));
  PetscCall(QBoxColorMapsDestroy(&m));
  PetscCall(DMQBoxColumnsDestroy_Private(&c));
  PetscCall(PetscSNPrintf(what, sizeof(what), "exchange of the color group of %" PetscInt_FMT, color));
  PetscCall(DMQBoxPackedSetUp_Private(dm, what, &send, &recv, x));
  PetscCall(DMQBoxPeersDestroy_Private(&send));
  PetscCall(DMQBoxPeersDestroy_Private(&recv));
  PetscCall(PetscLogEventEnd(VPATCH_ColorSetUp, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxColorExchangeBegin_Private - starts the exchange of the group of color `color` in the local array xa (memory
  type mt), after the group's last color: packs the values this rank's patches of the group's colors changed and sends
  them. DMQBoxColorExchangeEnd_Private() receives and writes the values the other ranks' patches changed into xa.
  Collective.
*/
PetscErrorCode DMQBoxColorExchangeBegin_Private(DM dm, PetscInt color, PetscMemType mt, PetscScalar *xa)
{
  DM_QBox             *q = (DM_QBox *)dm->data;
  DMQBoxColorExchange *x;
  PetscScalar         *sbuf = NULL, *rbuf = NULL;

  PetscFunctionBegin;
  PetscCall(DMQBoxColorExchangeSetUp_Private(dm, color));
  PetscCall(PetscLogEventBegin(VPATCH_ColorXBegin, dm, 0, 0, 0));
  x = QBoxColorExchangeOf(dm, color);
  PetscCall(DMQBoxPackedBuffers_Private(q->xbuf, q->nxbuf, mt, PetscMax(x->nsend, x->nrecv), &sbuf, &rbuf)); /* the DM's, shared by the colors */
  PetscCall(DMQBoxPackedCopy_Private(x, 0, 0, x->nsend, mt, VP_PACK, sbuf, xa));
  PetscCall(DMQBoxPackedWaitDevice_Private(mt));
  PetscCall(PetscLogEventBegin(VPATCH_XComm, 0, 0, 0, 0));
  PetscCall(PetscSFBcastWithMemTypeBegin(x->sf, q->chunk, mt, sbuf, mt, rbuf, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(VPATCH_XComm, 0, 0, 0, 0));
  PetscCall(PetscLogEventEnd(VPATCH_ColorXBegin, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxColorExchangeEnd_Private(DM dm, PetscInt color, PetscMemType mt, PetscScalar *xa)
{
  DM_QBox             *q    = (DM_QBox *)dm->data;
  DMQBoxColorExchange *x    = QBoxColorExchangeOf(dm, color);
  const int            dev  = PetscMemTypeDevice(mt) ? 1 : 0;
  PetscScalar         *sbuf = q->xbuf[dev][0], *rbuf = q->xbuf[dev][1]; /* those of DMQBoxColorExchangeBegin_Private() */

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_ColorXEnd, dm, 0, 0, 0));
  PetscCall(PetscLogEventBegin(VPATCH_XComm, 0, 0, 0, 0));
  PetscCall(PetscSFBcastEnd(x->sf, q->chunk, sbuf, rbuf, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(VPATCH_XComm, 0, 0, 0, 0));
  PetscCall(DMQBoxPackedCopy_Private(x, 1, 0, x->nrecv, mt, VP_UNPACK, rbuf, xa));
  PetscCall(PetscLogEventEnd(VPATCH_ColorXEnd, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxColorExchangeDestroy_Private(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  for (PetscInt c = 0; c < 8; c++) PetscCall(DMQBoxPackedDestroy_Private(&q->colorx[c]));
  PetscCall(PetscFree2(q->xbuf[0][0], q->xbuf[0][1]));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VPDeviceMPIFree_Private(q->xbuf[1][0]));
  PetscCall(VPDeviceMPIFree_Private(q->xbuf[1][1]));
#endif
  q->xbuf[1][0] = q->xbuf[1][1] = NULL;
  q->nxbuf[0] = q->nxbuf[1] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
