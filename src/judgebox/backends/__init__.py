"""Where judge work runs. ``local`` is the embedded worker pool every other backend builds on."""
