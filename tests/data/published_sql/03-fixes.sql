UPDATE users SET modified = '2021-01-11 15:15:15';

-- rename a system, fix a vendor
UPDATE
    submissions
SET
    information_system = 'Mistral',
    information_storage_vendor = 'Seagate'
WHERE
    id = 7;

-- remove a duplicate submission and its list row
DELETE FROM submissions WHERE id = 9;
DELETE FROM list_sc18_star_io500 WHERE submission_id = 9;

TRUNCATE TABLE `list_sc19_10node`;
INSERT INTO list_sc19_10node (listing_id, submission_id, score) SELECT 9, id, io500_score FROM submissions WHERE information_client_nodes = 10;
