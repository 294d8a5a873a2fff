static char help[] = "Index arithmetic past 2^31 without the memory: a 3D DMQBOX of 2000^3 Q_1 cells (8.0e9 nodes) is set up\n\
(no vectors). With 64-bit PetscInt its sizes and the local index of its last node must be exact; with 32-bit PetscInt\n\
DMSetUp() must refuse the mesh with an error that names the size.\n\n";

#include <petscvpatch/private/qboximpl.h>

int main(int argc, char **argv)
{
  DM             dm;
  PetscInt       cells[3] = {2000, 2000, 2000}, n = 2001;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 1, NULL, NULL, &dm));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = DMSetUp(dm);
  PetscCall(PetscPopErrorHandler());
  if (sizeof(PetscInt) == 4) {
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "32-bit PetscInt: DMSetUp() of 8.0e9 nodes returned %d, expected the out-of-range error", (int)ierr);
  } else {
    const VPGrid *g       = &((DM_QBox *)dm->data)->grid;
    PetscInt      last[3] = {n - 1, n - 1, n - 1}, mid[3] = {1234, 1999, 1500};
    int64_t       nn = (int64_t)n;

    PetscCheck(!ierr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "64-bit PetscInt: DMSetUp() of 8.0e9 nodes failed (%d)", (int)ierr);
    /* one rank: the owned and the ghosted box are the whole node grid */
    PetscCheck((int64_t)g->xm[0] * g->xm[1] * g->xm[2] == nn * nn * nn, PETSC_COMM_SELF, PETSC_ERR_PLIB, "owned nodes %" PetscInt_FMT "^3, expected %" PetscInt_FMT "^3", g->xm[0], n);
    PetscCheck((int64_t)VPGridLocalIndex(g, last) == nn * nn * nn - 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "local index of the last node %" PetscInt_FMT ", expected %lld", VPGridLocalIndex(g, last), (long long)(nn * nn * nn - 1));
    PetscCheck((int64_t)VPGridLocalIndex(g, mid) == (1500 * nn + 1999) * nn + 1234, PETSC_COMM_SELF, PETSC_ERR_PLIB, "local index of node (1234, 1999, 1500) is %" PetscInt_FMT, VPGridLocalIndex(g, mid));
    PetscCheck(VPFlopsCells(g) == 8e9 && VPFlopsPatches(g) == 1999.0 * 1999.0 * 1999.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cell or patch count of the flop model wrong: %g, %g", (double)VPFlopsCells(g), (double)VPFlopsPatches(g));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d-bit PetscInt: 2000^3 cells handled as expected\n", (int)(8 * sizeof(PetscInt))));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    output_file: none

TEST*/
