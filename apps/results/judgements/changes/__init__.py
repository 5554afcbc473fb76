"""Change points and their attribution: the plain-Python half of change detection.

`detection` finds steps and outliers in one series; `attribution` names what differs at a step from a
`RunDiff`. Reading histories and storing `Change` rows is `apps.results.services.changes`.
"""
