"""The names of IO500 eras and generations, defined once for every layer.

An *era* is the program that produced a run (``Run.era``): the bash ``io500.sh`` scripts and the SC17
job scripts (``script``), or the C application (``capp``). A *generation* (``Run.generation``) is a
finer grammar and scoring family inside an era (docs/io500-formats.md, section 2). The score formulas here,
the anomaly rules, the models' choices and ingest's era registry
(``apps.ingest.tools.io500.grammar.eras``) all use these constants, never the strings.
"""

ERA_SCRIPT = "script"  # io500.sh (2018-2020) and the SC17 job scripts
ERA_CAPP = "capp"  # the C application (2020 on)

GENERATION_SC17 = "sc17"  # SC17 job scripts: MB/s and IOPS, product score, no mdtest_hard_read
GENERATION_BASH_PRODUCT = "bash-product"  # io500_fixed.sh, Oct 2017 - May 2018: TOTAL = BW x MD
GENERATION_BASH_SQRT = "bash-sqrt"  # io500.sh from 2018-05-09: TOTAL = sqrt(BW x MD)
GENERATION_CAPP_G1 = "capp-g1"  # isc20, early sc20: summary prints GB/s (values are GiB/s)
GENERATION_CAPP_G2 = "capp-g2"  # sc20 after the unit fix
GENERATION_CAPP_G3 = "capp-g3"  # isc21 on: [SCORE ], [SCOREX], version header

GENERATIONS = (
    GENERATION_SC17,
    GENERATION_BASH_PRODUCT,
    GENERATION_BASH_SQRT,
    GENERATION_CAPP_G1,
    GENERATION_CAPP_G2,
    GENERATION_CAPP_G3,
)
