"""scinum's version (``scinum.__version__``), where the modules that record it can read it
without importing the package's public face."""

__version__ = "0.1.0"
