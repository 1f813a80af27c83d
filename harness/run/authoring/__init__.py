"""Tasks made and proven: a demonstration turned into a sound task (`record_task`, a second language:
`record_merge`), and every task of a suite proven sound (`task_check`)."""
