"""`python -m olla ARGS` and the `olla` command of an installed package: olla's command
line, the C++ program the package carries in olla/_bin (`pip install .` installs it
there; in a checkout `make build` links it there)."""

import os
import sys


def main():
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "olla")
    if not os.access(program, os.X_OK):
        sys.stderr.write(f"olla: the command-line program {program} is not built (pip "
                         f"install . in the source tree, or make build in a checkout)\n")
        return 2
    os.execv(program, ["olla"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
