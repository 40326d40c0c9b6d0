"""`python -m specbind`: the command line."""

from generator.cli import main

main(prog_name="specbind")
