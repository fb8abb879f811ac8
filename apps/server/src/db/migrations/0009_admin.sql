-- Admin area: operators' notes that close code incidents, and the audit log's action filter.

-- One note per incident. The incidents belong to the codes module; there is no foreign key to
-- them so that this migration does not depend on the codes migration's number. The admin
-- service checks that the incident exists before writing a note.
CREATE TABLE code_incident_resolutions (
  incident_id bigint PRIMARY KEY,
  admin_id    integer NOT NULL REFERENCES users(id),
  note        text NOT NULL CHECK (length(note) BETWEEN 1 AND 1000),
  resolved_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX admin_audit_log_action ON admin_audit_log (action, id);
