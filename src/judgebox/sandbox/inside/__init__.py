"""Code that runs inside the sandbox's warm worker process (the "zygote").

This package is loaded by whatever Python the sandbox runs (Debian's ``/usr/bin/python3`` by default,
or the one configured), under the private name ``_judgebox_sandbox``, so it uses the standard library
only and never imports the rest of judgebox.
"""
