"""The backends besides the embedded judge (``judgebox.judging``), and the one table of them.

``registry`` maps an address to a backend (``judgebox.connect``), and ``urls`` the address of a server (it
loads the HTTP client, so only for such an address); ``server`` judges on ``judgebox serve``
endpoints, ``ray`` on every node of a Ray cluster (each node's actor, ``ray_node``, is an embedded judge);
``sandboxfusion`` is the one foreign transport, a SandboxFusion ``/run_code`` server. Every backend keeps
the contract of :class:`judgebox.backend.Backend`.
"""
