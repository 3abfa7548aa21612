"""The sandbox: runs commands and Python programs under limits and isolation. It knows no languages.

Layout: ``config`` (what the machine must give), ``slot`` (one warm worker process, judge side),
``inside/`` (what runs in that process: namespaces, Landlock, seccomp, the per-run confinement),
``seccomp_policy`` and ``cgroups`` (prepared on the judge side), ``report`` (what is active here).
"""
