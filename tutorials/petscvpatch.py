"""petsc-vpatch from Python, through petsc4py.

    import petscvpatch
    PETSc = petscvpatch.init(sys.argv)          # PETSc initialized, the library loaded and registered
    dm = petscvpatch.create(PETSc.COMM_WORLD, dim=3, cells=[16] * 3, degree=3)
    petscvpatch.set_mapping(dm, 'shell')        # before setFromOptions()/setUp()
    petscvpatch.set_coefficient(dm, 'oscillatory')

After create() the DM is a petsc4py DM like any other (setFromOptions, createGlobalVec, KSP.setDM, ...). The DMQBOX
calls petsc4py does not know (DMQBoxSetCells(), DMQBoxSetMappingType(), DMQBoxComputeRHS(), ...) go to the library
through ctypes.

Where things are found, with no environment set by hand: the checkout's lib/<PETSC_ARCH>/libpetscvpatch.so, and
petsc4py from the PETSc cache of `make` (config/bootstrap-petsc.sh builds it there; else an importable one).
PETSC_DIR and PETSC_ARCH, when set, choose the PETSc.
"""
import ctypes
import glob
import os
import sys

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_lib = None
PETSc = None


def _petsc_location():
    """(PETSC_DIR, PETSC_ARCH) of the environment, else of the bootstrapped cache (the newest build there)"""
    if os.environ.get('PETSC_DIR'):
        return os.environ['PETSC_DIR'], os.environ.get('PETSC_ARCH', '')
    cache = os.environ.get('VPATCH_CACHE') or os.path.join(os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'petsc-vpatch')
    stamps = sorted(glob.glob(os.path.join(cache, 'petsc-*', 'arch-*', '.vpatch-bootstrap-done')), key=os.path.getmtime)
    if not stamps:
        raise RuntimeError('petscvpatch: no bootstrapped PETSc under %s: run make first (or set PETSC_DIR and PETSC_ARCH)' % cache)
    archdir = os.path.dirname(stamps[-1])
    return os.path.dirname(archdir), os.path.basename(archdir)


def _import_petsc4py(petsc_dir, petsc_arch):
    """petsc4py built for this PETSc (make puts it in PETSC_DIR/PETSC_ARCH/petsc4py), else one already importable"""
    path = os.path.join(petsc_dir, petsc_arch, 'petsc4py')
    if os.path.isdir(os.path.join(path, 'petsc4py')):
        sys.path.insert(0, path)  # before any other petsc4py, which may belong to another PETSc
    try:
        import petsc4py
    except ImportError:
        raise RuntimeError('petscvpatch: petsc4py not found in %s: run make (it builds petsc4py for the bootstrapped PETSc)' % path)
    return petsc4py


def init(args=None):
    """Initialize PETSc (petsc4py) with args (e.g. sys.argv), load libpetscvpatch and register its types; returns PETSc"""
    global _lib, PETSc
    if PETSc is not None:
        return PETSc
    petsc_dir, petsc_arch = _petsc_location()
    petsc4py = _import_petsc4py(petsc_dir, petsc_arch)
    petsc4py.init(args if args is not None else sys.argv)
    from petsc4py import PETSc as _PETSc
    arch = petsc_arch or _PETSc.Sys.getVersionInfo().get('arch', '')
    path = os.path.join(_root, 'lib', arch, 'libpetscvpatch.so')
    if not os.path.exists(path):
        raise RuntimeError('petscvpatch: %s not found: run make (the library of PETSc arch %s)' % (path, arch))
    _lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    _check(_lib.PetscVPatchInitializePackage(), 'PetscVPatchInitializePackage')
    PETSc = _PETSc
    return PETSc


def _check(ierr, what):
    if ierr:
        raise RuntimeError('petscvpatch: %s failed with PETSc error %d (the message above says why)' % (what, ierr))


def _int_t():
    return ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32


def _enum_names(table):
    """the names of one of PETSc's enum tables (a C array: the names, the type name, the prefix, NULL)"""
    names = ctypes.cast(ctypes.addressof(ctypes.c_char_p.in_dll(_lib, table)), ctypes.POINTER(ctypes.c_char_p))
    values = []
    i = 0
    while names[i] is not None:
        values.append(names[i].decode())
        i += 1
    return values[:-2]


def _enum_value(table, name, allowed=None):
    values = _enum_names(table)
    ok = allowed or values
    if name not in ok:
        raise ValueError('petscvpatch: %r is not one of %s' % (name, ', '.join(ok)))
    return values.index(name)


def create(comm, dim=2, cells=(16, 16, 16), degree=2, lower=None, upper=None):
    """A DMQBOX on comm: dim 2 or 3, cells per direction, Q_degree, the box [lower, upper] (default the unit box).
    The same as DMQBoxCreate(); options (-dm_qbox_...) still apply at dm.setFromOptions()"""
    if _lib is None:
        raise RuntimeError('petscvpatch: call petscvpatch.init() first')
    It = _int_t()
    dm = PETSc.DM().create(comm)
    dm.setType('qbox')
    h = ctypes.c_void_p(dm.handle)
    _check(_lib.DMQBoxSetDimension(h, It(dim)), 'DMQBoxSetDimension')
    _check(_lib.DMQBoxSetCells(h, (It * 3)(*(list(cells) + [1, 1, 1])[:3])), 'DMQBoxSetCells')
    _check(_lib.DMQBoxSetDegree(h, It(degree)), 'DMQBoxSetDegree')
    if lower is not None or upper is not None:
        lo = list(lower) if lower is not None else [0.0] * dim
        hi = list(upper) if upper is not None else [1.0] * dim
        _check(_lib.DMQBoxSetBox(h, (ctypes.c_double * 3)(*(lo + [0.0] * 3)[:3]), (ctypes.c_double * 3)(*(hi + [1.0] * 3)[:3])), 'DMQBoxSetBox')
    return dm


def set_mapping(dm, name):
    """DMQBoxSetMappingType(): 'none', 'shell' or 'deformed' (a map of your own: DMQBoxSetMapping() from C)"""
    v = _enum_value('DMQBoxMappingTypes', name, ['none', 'shell', 'deformed'])
    _check(_lib.DMQBoxSetMappingType(ctypes.c_void_p(dm.handle), ctypes.c_int(v)), 'DMQBoxSetMappingType')


def set_coefficient(dm, name):
    """DMQBoxSetCoefficientType(): 'one' or 'oscillatory' (its contrast: -dm_qbox_coefficient_contrast)"""
    v = _enum_value('DMQBoxCoefficientTypes', name, ['one', 'oscillatory'])
    _check(_lib.DMQBoxSetCoefficientType(ctypes.c_void_p(dm.handle), ctypes.c_int(v)), 'DMQBoxSetCoefficientType')


def get_mapping(dm):
    """DMQBoxGetMappingType(): the map's name"""
    v = ctypes.c_int()
    _check(_lib.DMQBoxGetMappingType(ctypes.c_void_p(dm.handle), ctypes.byref(v)), 'DMQBoxGetMappingType')
    return _enum_names('DMQBoxMappingTypes')[v.value]


def get_coefficient(dm):
    """DMQBoxGetCoefficientType(): the coefficient's name"""
    v = ctypes.c_int()
    _check(_lib.DMQBoxGetCoefficientType(ctypes.c_void_p(dm.handle), ctypes.byref(v)), 'DMQBoxGetCoefficientType')
    return _enum_names('DMQBoxCoefficientTypes')[v.value]


def get_operator_weights(dm):
    """DMQBoxGetOperatorWeights(): (a, b) of the operator a M + b K"""
    a, b = ctypes.c_double(), ctypes.c_double()
    _check(_lib.DMQBoxGetOperatorWeights(ctypes.c_void_p(dm.handle), ctypes.byref(a), ctypes.byref(b)), 'DMQBoxGetOperatorWeights')
    return a.value, b.value


FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.c_void_p)


def compute_rhs(dm, f, b):
    """DMQBoxComputeRHS() with the source f(x) -> float (homogeneous Dirichlet data) into the global vector b"""
    cb = _pointwise(f, gradient=None)
    _check(_lib.DMQBoxComputeRHS(ctypes.c_void_p(dm.handle), cb, None, None, ctypes.c_void_p(b.handle)), 'DMQBoxComputeRHS')


def compute_error(dm, u, exact, grad):
    """DMQBoxComputeError(): the L2 and H1 errors of u against exact(x) -> float with gradient grad(x) -> list"""
    cb = _pointwise(exact, grad)
    l2, h1 = ctypes.c_double(), ctypes.c_double()
    _check(_lib.DMQBoxComputeError(ctypes.c_void_p(dm.handle), ctypes.c_void_p(u.handle), cb, None, ctypes.byref(l2), ctypes.byref(h1)), 'DMQBoxComputeError')
    return l2.value, h1.value


def _pointwise(f, gradient):
    if _int_t() is not ctypes.c_int64 or PETSc.ScalarType().itemsize != 8 or PETSc.RealType().itemsize != 8:
        raise RuntimeError('petscvpatch: the pointwise helpers need a real double PETSc with 64-bit indices (the bootstrapped one)')

    def call(dim, x, u, du, ctx):
        p = [x[i] for i in range(dim)]
        u[0] = f(p)
        if du and gradient is not None:
            g = gradient(p)
            for i in range(dim):
                du[i] = g[i]
        return 0

    return FUNCTION(call)  # the caller keeps it alive while the C call that uses it runs


def get_info(dm):
    """DMQBoxGetInfo(): dict with dim, cells (3 entries), degree, lower, upper"""
    It = _int_t()
    dim, k = It(), It()
    cells = (It * 3)()
    lo, hi = (ctypes.c_double * 3)(), (ctypes.c_double * 3)()
    _check(_lib.DMQBoxGetInfo(ctypes.c_void_p(dm.handle), ctypes.byref(dim), cells, ctypes.byref(k), lo, hi), 'DMQBoxGetInfo')
    return dict(dim=dim.value, cells=list(cells), degree=k.value, lower=list(lo), upper=list(hi))
