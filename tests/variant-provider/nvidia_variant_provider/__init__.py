"""A test stand-in for the nvidia wheel variant provider (see plugin.py)."""
