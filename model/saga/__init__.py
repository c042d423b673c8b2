"""Saga properties (SG rules) proven over the lifecycle tables and the order rules, and the
``rescind prove`` checks of group ``saga``."""
