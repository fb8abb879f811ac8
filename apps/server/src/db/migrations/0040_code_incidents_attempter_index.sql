-- An incident is opened once per code and user who tried it (acknowledged ones included): the check reads
-- this index instead of scanning every incident of the service.
CREATE INDEX code_incidents_code_attempter ON code_incidents (code_id, attempted_by);
