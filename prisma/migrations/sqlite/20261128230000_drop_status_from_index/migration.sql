-- The index on the message's status and `from` number alone is rewritten at each status change of every message (a
-- delivered message changes three times), at a page of its own for each number. What read it, the metrics' queue
-- depths, reads the queue's partial index instead ("Message_queue_idx": the outbound messages queued or being sent).
DROP INDEX "Message_status_fromNumber_idx";
