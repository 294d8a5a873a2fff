#!/usr/bin/env python3
"""ex1 from Python: -Laplace u = f on the unit square or cube with u = prod_i sin(pi x_i), Q_k on a DMQBOX, solved by
any solver the options choose (default: CG with PCMG and Chebyshev-Jacobi, as ex1.c), on the CPU or, with
-dm_vec_type cuda, the GPU. Prints what ex1.c prints: the unknowns, the solver, the iterations, the true relative
residual and the L2 and H1 errors; exits with status 1 when the solve did not converge.

    python3 tutorials/ex1.py -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_cells 8 -dm_qbox_degree 3

Options of this script: -mapping none|shell|deformed and -coefficient one|oscillatory show the DMQBOX calls of the
petscvpatch module (the same as -dm_qbox_mapping and -dm_qbox_coefficient). The errors are printed where u is the
solution of the problem (the unit box, no map, no coefficient), as ex1.c does; the operator may be a M + b K
(-dm_qbox_operator_mass a).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import petscvpatch  # noqa: E402

PETSc = petscvpatch.init(sys.argv)
opts = PETSc.Options()
mapping = opts.getString('mapping', 'none')
coefficient = opts.getString('coefficient', 'one')

dm = petscvpatch.create(PETSc.COMM_WORLD, dim=2, cells=[16, 16, 16], degree=2)
if mapping != 'none':
    petscvpatch.set_mapping(dm, mapping)
if coefficient != 'one':
    petscvpatch.set_coefficient(dm, coefficient)
dm.setFromOptions()
dm.setUp()
dim = dm.getDimension()
mass, stiff = petscvpatch.get_operator_weights(dm)


def exact(x):
    return math.prod(math.sin(math.pi * xi) for xi in x)


def grad(x):
    return [math.pi * math.cos(math.pi * x[d]) * math.prod(math.sin(math.pi * x[e]) for e in range(len(x)) if e != d) for d in range(len(x))]


def source(x):  # (a M + b K) u = f: f = (a + b d pi^2) u
    return (mass + stiff * dim * math.pi**2) * exact(x)


u = dm.createGlobalVec()
b = u.duplicate()
r = u.duplicate()
petscvpatch.compute_rhs(dm, source, b)

if opts.getString('pc_type', 'mg') == 'mg':  # ex1.c's multigrid defaults, unless given
    for name, value in (('mg_levels_pc_type', 'jacobi'), ('mg_coarse_ksp_type', 'cg'), ('mg_coarse_pc_type', 'jacobi'), ('mg_coarse_ksp_rtol', '1e-12'), ('mg_coarse_ksp_max_it', '1000')):
        if not opts.hasName(name):
            opts.setValue(name, value)
ksp = PETSc.KSP().create(PETSc.COMM_WORLD)
ksp.setDM(dm)
ksp.setType('cg')
ksp.getPC().setType('mg')  # with no -pc_mg_levels, PCMG takes the whole DMQBOX hierarchy
ksp.setTolerances(rtol=1e-8)
ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
ksp.setFromOptions()
ksp.setDMActive(PETSc.KSP.DMActive.RHS, False)  # the right-hand side is ours, the operators the DM's
ksp.solve(b, u)

A, _ = ksp.getOperators()
A.mult(u, r)
r.aypx(-1.0, b)
rnorm, bnorm = r.norm(), b.norm()
its, reason = ksp.getIterationNumber(), ksp.getConvergedReason()
rtol = ksp.getTolerances()[0]
failed = reason < 0 or not rnorm <= 10 * rtol * bnorm  # as ex1.c: 10 rtol allows for the recurrence's drift

info = petscvpatch.get_info(dm)
k, cells = info['degree'], info['cells']
print_ = PETSc.Sys.Print
op = 'Poisson' if (mass, stiff) == (0.0, 1.0) else '%g M + %g K' % (mass, stiff)
print_('Q_%d %s in %dD: %d unknowns (%d nodes)' % (k, op, dim, math.prod(c * k - 1 for c in cells[:dim]), math.prod(c * k + 1 for c in cells[:dim])))
pc = ksp.getPC()
if pc.getType() == 'mg' and pc.getMGLevels() > 1:
    smoother, coarse = pc.getMGSmoother(pc.getMGLevels() - 1), pc.getMGCoarseSolve()
    print_('solver: %s + mg, %d levels, smoother %s + %s, coarse solve %s + %s' % (ksp.getType(), pc.getMGLevels(), smoother.getType(), smoother.getPC().getType(), coarse.getType(), coarse.getPC().getType()))
else:
    print_('solver: %s + %s' % (ksp.getType(), pc.getType()))
reasons = {getattr(PETSc.KSP.ConvergedReason, n): n for n in dir(PETSc.KSP.ConvergedReason) if not n.startswith('_')}
print_('iterations %d (%s), true relative residual %.2e' % (its, reasons.get(reason, str(reason)), rnorm / bnorm))
unit = all(lo == 0 and hi == 1 for lo, hi in zip(info['lower'][:dim], info['upper'][:dim]))
why = 'a map' if petscvpatch.get_mapping(dm) != 'none' else 'a coefficient' if petscvpatch.get_coefficient(dm) != 'one' else None if unit else 'not the unit box'
if why is None:
    l2, h1 = petscvpatch.compute_error(dm, u, exact, grad)
    print_('L2 error %.4e, H1 error %.4e' % (l2, h1))
else:
    print_('no L2 error: u = prod sin(pi x_i) is not the solution of this problem (%s)' % why)
if failed:
    print_('the solve did not converge: %s, true relative residual %.2e above 10 rtol' % (reasons.get(reason, str(reason)), rnorm / bnorm))
for obj in (ksp, A, r, b, u, dm):  # before PETSc's finalization, so that -malloc_dump sees nothing left
    obj.destroy()
sys.exit(1 if failed else 0)

# Each test compares with the expected output of the ex1.c test of the same arguments: the same problem, solver and
# numbers from Python.
# /*TEST
#   test:
#     args: -dm_qbox_degree 4 -dm_qbox_cells 8
#     output_file: ex1_2d_k4
#   test:
#     suffix: 3d_k3
#     args: -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 4
#     output_file: ex1_3d_k3
#   test:
#     suffix: vpatch
#     args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16
#     output_file: ex1_2d_vpatch_options_file
#   test:
#     suffix: shell
#     args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 4 -mapping shell -coefficient oscillatory
#     output_file: ex1_3d_shell_oscillatory
#   test:
#     suffix: mass_np2
#     nsize: 2
#     args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_operator_mass 10
#     output_file: ex1_2d_mass
#   test:
#     suffix: cuda
#     requires: cuda
#     args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_vec_type cuda
#     output_file: ex1_2d_vpatch_options_file
# TEST*/
