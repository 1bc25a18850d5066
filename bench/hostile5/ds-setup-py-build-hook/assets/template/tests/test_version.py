import pkgname

def test_version():
    assert pkgname.__version__
