"""`python -m specbind`: the command line."""

from generator.entry import main

main()
