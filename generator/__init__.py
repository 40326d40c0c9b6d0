"""specbind: compile a protocol's schema (and later its rules) into vendorable bindings."""

__version__ = "0.1.0"
