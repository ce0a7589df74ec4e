"""Benchmark problems for VPBOSampler.

Synthetic (CoCaBO's Func2C/Func3C, Ackley-5C/Ackley-53), Summit 0.8.9 chemistry emulators
evaluated with numpy, and small machine-learning tasks; see :mod:`.problems`.
"""
