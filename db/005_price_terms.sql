-- docs/model.md "Catalog references": what a source says beside a price. A commitment's upfront
-- fee per instance per term and its recurring hourly rate where the source gives them apart
-- (hourly stays the effective rate, NULL here when the source gives only that), and a spot
-- price's interruption frequency band a month ("<5%" .. ">20%"), NULL when none.
ALTER TABLE price ADD COLUMN upfront REAL CHECK (upfront IS NULL OR upfront >= 0);
ALTER TABLE price ADD COLUMN recurring REAL CHECK (recurring IS NULL OR recurring >= 0);
ALTER TABLE price ADD COLUMN interruption_band TEXT;
