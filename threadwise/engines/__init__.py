"""Engines: the backends that run models, one module each, behind small interfaces."""
