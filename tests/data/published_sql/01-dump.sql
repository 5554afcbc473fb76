-- A hand-made miniature of io500.org's phpMyAdmin dump (MySQL dialect), for the replay's tests.
SET SQL_MODE = "NO_AUTO_VALUE_ON_ZERO";
SET AUTOCOMMIT = 0;
START TRANSACTION;
/*!40101 SET NAMES utf8mb4 */;

CREATE TABLE `releases` (
  `id` bigint(20) UNSIGNED NOT NULL,
  `acronym` varchar(255) NOT NULL,
  `release_date` date NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

INSERT INTO `releases` (`id`, `acronym`, `release_date`) VALUES(1, 'SC19', '2019-11-19');
INSERT INTO `releases` (`id`, `acronym`, `release_date`) VALUES(2, 'SC18*', '2019-01-01');

CREATE TABLE `submissions` (
  `id` bigint(20) UNSIGNED NOT NULL,
  `release_id` int(11) DEFAULT NULL,
  `information_system` varchar(255) COLLATE utf8_bin DEFAULT NULL,
  `information_institution` varchar(255) COLLATE utf8_bin DEFAULT NULL,
  `information_storage_vendor` varchar(255) COLLATE utf8_bin DEFAULT NULL,
  `information_filesystem_type` varchar(255) COLLATE utf8_bin DEFAULT NULL,
  `information_client_nodes` int(11) DEFAULT NULL,
  `information_md_nodes` varchar(255) COLLATE utf8_bin DEFAULT NULL,
  `io500_score` decimal(15,6) DEFAULT NULL,
  `io500_bw` decimal(15,6) DEFAULT NULL,
  `io500_md` decimal(15,6) DEFAULT NULL,
  `ior_easy_write` decimal(15,6) DEFAULT NULL,
  `find_easy` decimal(15,6) DEFAULT NULL,
  `status` text COLLATE utf8_bin NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8 COLLATE=utf8_bin;

INSERT INTO `submissions` (`id`, `release_id`, `information_system`, `information_institution`, `information_storage_vendor`, `information_filesystem_type`, `information_client_nodes`, `information_md_nodes`, `io500_score`, `io500_bw`, `io500_md`, `ior_easy_write`, `find_easy`, `status`) VALUES
(3, 1, 'WekaIO on AWS', 'WekaIO', 'WekaIO', 'WekaIO Matrix', 345, '120', '938.950000', '174.740000', '5045.330000', '298.130000', '32781.000000', 'VALID'),
(4, 1, 'Wolf', 'Intel', 'Intel', 'DAOS', 10, '0', '933.640000', '183.360000', '4753.790000', '108.240000', '4284.000000', 'VALID'),
(7, 1, 'Mistral; with a semicolon', 'DKRZ', 'Sea', 'Lustre', 10, '', '32.150000', '4.500000', '230.000000', '1.000000', '2.000000', 'VALID'),
(9, 2, 'Duplicate', 'DKRZ', 'Seagate', 'Lustre', 10, '', '1.000000', '1.000000', '1.000000', '1.000000', '1.000000', 'VALID');

ALTER TABLE `submissions`
  ADD PRIMARY KEY (`id`),
  ADD UNIQUE KEY `id` (`id`);
ALTER TABLE `submissions`
  MODIFY `id` bigint(20) UNSIGNED NOT NULL AUTO_INCREMENT, AUTO_INCREMENT=10;
COMMIT;
