ALTER TABLE `submissions` CHANGE `information_md_nodes` `information_md_nodes` INT NULL DEFAULT NULL;

CREATE TABLE `list_sc19_io500` (
  `id` bigint(20) UNSIGNED NOT NULL,
  `listing_id` int(11) NOT NULL,
  `submission_id` int(11) NOT NULL,
  `score` double NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- submission 4 twice, as the site showed it; rows not in score order
INSERT INTO `list_sc19_io500` (`id`, `listing_id`, `submission_id`, `score`) VALUES
(1, 3, 4, 933.64),
(2, 3, 3, 938.95),
(3, 3, 7, 32.15),
(4, 3, 4, 933.64);

ALTER TABLE `list_sc19_io500`
  ADD PRIMARY KEY (`id`);
ALTER TABLE `list_sc19_io500`
  MODIFY `id` bigint(20) UNSIGNED NOT NULL AUTO_INCREMENT, AUTO_INCREMENT=5;

CREATE TABLE `list_sc19_10node` (
  `id` SERIAL,
  `listing_id` int(11) NOT NULL,
  `submission_id` int(11) NOT NULL,
  `score` double NOT NULL
);
INSERT INTO list_sc19_10node (listing_id, submission_id, score)
SELECT 9, id, io500_score FROM submissions WHERE information_client_nodes = 10 AND release_id = 1;

CREATE TABLE `list_sc18_star_io500` (
  `id` SERIAL,
  `listing_id` int(11) NOT NULL,
  `submission_id` int(11) NOT NULL,
  `score` double NOT NULL
);
INSERT INTO list_sc18_star_io500 (listing_id, submission_id, score) VALUES (22, 9, 1.0);

CREATE VIEW listings_submissions AS
SELECT * FROM list_sc19_io500
UNION ALL
SELECT * FROM list_sc19_10node;
