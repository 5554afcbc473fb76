"""Lustre provenance: build (versions, base commit, patches), tunables and striping, as plain data.

Two Lustre runs are only comparable when one knows what differed: the Cambridge ISC19 run
was not "Lustre 2.12" but a master snapshot plus five patches and a revert, with client lock
caches set to 4 million entries. The modules of this package turn the places where submitters
record that into dataclasses that can be stored and diffed, one idea each:

``versions``   release-note style text and ``io500_info_*`` fields -> ``LustreBuildInfo``
``shell``      the bit of shell needed to read scripts: lines, comments, words, ``$((...))``, sizes
``tunables``   ``lctl set_param`` / ``conf_param`` lines -> ``TunableInfo`` (client or server)
``striping``   ``lfs setstripe`` / ``setdirstripe`` / ``mkdir`` -> ``StripingInfo``
``inventory``  ``lustre_*`` variables of an Ansible inventory -> ``TunableInfo``
``sidecar``    the ``lustre``/``tunables``/``striping`` part of an ``ioboard.yaml`` -> ``LustreProvenance``

They never raise on odd input (the sidecar reader excepted, whose errors name the file):
provenance is best-effort and an unparsable line is simply not a tunable.
"""
