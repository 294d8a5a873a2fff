#!/usr/bin/env python3
"""The data-path figure of docs/design.md: one solve with the recommended solver, stage by stage, from the PETSc call
through our host glue to the kernel that does the work, and where the data lives.

    python3 docs/datapath.py           writes the figure into docs/design.md (between its datapath markers)
    python3 docs/datapath.py --check   exits 1 if the figure there is not this script's, or a file it names is missing

make check runs the check, so the figure cannot go stale: a renamed file fails it.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, 'docs', 'design.md')
BEGIN, END = '<!-- datapath: made by docs/datapath.py -->', '<!-- datapath end -->'

# (indent, stage, PETSc call, host glue, kernel): the host glue takes PETSc objects and options, the kernel plain pointers
STAGES = [
    (0, 'solve', 'KSPSolve', '(PETSc: Richardson or GMRES)', ''),
    (1, 'V-cycle', 'PCApply', '(PETSc: PCMG, levels from DMCoarsen)', ''),
    (2, 'pre-smooth', 'PCApplyRichardson', 'src/pc/impls/vpatch/vpatch.c', ''),
    (3, 'variant', '', 'src/pc/impls/vpatch/vpatch_cartesian.c', ''),
    (3, 'per color', '', 'src/dm/impls/qbox/qboxcolor.c', 'src/pc/impls/vpatch/cuda/vpatch.cu'),
    (2, 'residual', 'MatResidual', 'src/mat/impls/laplacian/laplacian.c', 'src/mat/impls/laplacian/cuda/laplacian.cu'),
    (2, 'restrict', 'MatRestrict', 'src/mat/impls/transfer/transfer.c', 'src/mat/impls/transfer/cuda/transfer.cu'),
    (2, 'coarsest', 'KSPSolve', '(PETSc: CG + Jacobi)', 'src/mat/impls/laplacian/cuda/laplacian.cu'),
    (2, 'prolong', 'MatInterpolateAdd', 'src/mat/impls/transfer/transfer.c', 'src/mat/impls/transfer/cuda/transfer.cu'),
    (2, 'post-smooth', 'PCApplyRichardson', 'src/pc/impls/vpatch/vpatch.c', 'src/pc/impls/vpatch/cuda/vpatch.cu'),
    (1, 'Krylov', 'VecMDot, VecAYPX', 'src/dm/impls/qbox/qboxveccuda.c', 'src/sys/cuda/vecmdot.cu'),
]
# where the data lives: (what, made by)
DATA = [
    ('vectors: each level\'s global vectors, in device memory', 'src/dm/impls/qbox/qboxvec.c'),
    ('  several ranks: inside ghosted buffers, ghosts by packed exchanges', 'src/dm/impls/qbox/qboxghosted.c'),
    ('1D matrices, patch eigenvectors: constant memory', 'src/pc/impls/vpatch/vpatch_cartesian.c'),
    ('mapped box: geometric factors per Gauss point', 'src/dm/impls/qbox/qboxgeo.c'),
    ('mapped box: surrogate factors per vertex', 'src/pc/impls/vpatch/cuda/vpatch_surrogate.cu'),
]


def short(path):
    return path.replace('src/pc/impls/vpatch/', 'vpatch/').replace('src/mat/impls/', 'mat/').replace('src/dm/impls/qbox/', 'qbox/').replace('src/sys/', 'sys/')


def figure():
    rows = [('  ' * ind + stage, call, short(host), short(kern)) for ind, stage, call, host, kern in STAGES]
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    head = ('stage', 'PETSc call', 'host glue (C, PETSc objects)', 'kernel (.cu, plain pointers)')
    w = [max(w[i], len(head[i])) for i in range(3)]
    line = lambda r: ('%-*s  %-*s  %-*s  %s' % (w[0], r[0], w[1], r[1], w[2], r[2], r[3])).rstrip()
    out = [line(head), line(tuple('-' * n for n in w) + ('-' * len(head[3]),))]
    out += [line(r) for r in rows]
    out.append('')
    wd = max(len(d) for d, _ in DATA)
    out += [('%-*s  %s' % (wd, d, short(f))).rstrip() for d, f in DATA]
    out.append('(vpatch/ = src/pc/impls/vpatch/, mat/ = src/mat/impls/, qbox/ = src/dm/impls/qbox/, sys/ = src/sys/)')
    return BEGIN + '\n```\n' + '\n'.join(out) + '\n```\n' + END


def missing():
    paths = [p for _, _, _, h, k in STAGES for p in (h, k) if p and not p.startswith('(')] + [f for _, f in DATA]
    return [p for p in paths if not os.path.exists(os.path.join(ROOT, p))]


def main():
    text = open(DOC).read()
    if BEGIN not in text or END not in text:
        sys.exit('docs/datapath.py: docs/design.md has no datapath markers')
    a, b = text.index(BEGIN), text.index(END) + len(END)
    gone = missing()
    if '--check' in sys.argv:
        if gone:
            sys.exit('docs/datapath.py: the figure names files that do not exist: ' + ', '.join(gone))
        if text[a:b] != figure():
            sys.exit('docs/datapath.py: the figure in docs/design.md is not the script\'s: run python3 docs/datapath.py')
        print('docs/design.md: the data-path figure is current')
        return
    if gone:
        sys.exit('docs/datapath.py: these files do not exist: ' + ', '.join(gone))
    open(DOC, 'w').write(text[:a] + figure() + text[b:])


if __name__ == '__main__':
    main()
