"""The sandbox around every bot: the plan of what a seat may read and use (``policy``,
``paths``), the layers that enforce it (Landlock, seccomp, namespaces, cgroups, rlimits) and
the reaper that ends what a match started; ``probe`` tells which layers this machine has."""
