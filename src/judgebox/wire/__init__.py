"""The HTTP wire: the JSON bodies of ``/judge``, ``/judge/batch`` and SandboxFusion's ``/run_code``, shared by the
server, the client and every backend that speaks to a server."""
