"""What users run: the ``judgebox`` command, ``judgebox score``, its report, the benchmark and calibration."""
