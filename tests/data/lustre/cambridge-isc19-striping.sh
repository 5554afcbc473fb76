# Striping of the Cambridge ISC19 run (seeds/000): DNE1 remote directories for mdtest_easy,
# DNE2 striped directory for mdtest_hard, overstriping over 288 OSTs x 5 for ior_hard.
lfs setdirstripe -c -1 $mdtest_easy_testdir
lfs setdirstripe -c -1 -D $io500_mdt_hard
lfs setstripe -C $((288*5)) -S 16M $io500_ior_hard
