;;; inspect-report.el --- what Emacs org-mode sees in a puzzlebook report  -*- lexical-binding: t -*-
;; Usage: emacs --batch -Q -l inspect-report.el REPORT.org
;; Prints one line per finding:
;;   title TITLE
;;   src NAME <results-found: yes|no> <hash org-babel reads or ->
;;   table ROWS COLUMNS
;;   headline LEVEL TITLE
;;   file-link PATH <exists|missing>   (relative to the report's folder)
(require 'org)
(require 'org-element)
(require 'ob-core)
(let ((file (car command-line-args-left)))
  (with-temp-buffer
    (insert-file-contents file)
    (org-mode)
    (let ((title (cadr (assoc "TITLE" (org-collect-keywords '("TITLE"))))))
      (princ (format "title %s\n" title)))
    (org-babel-map-src-blocks nil
      (let* ((info (org-babel-get-src-block-info 'light))
             (name (nth 4 info))
             (where (org-babel-where-is-src-block-result))
             (hash (and where (org-babel-current-result-hash))))
        (princ (format "src %s %s %s\n" name (if where "yes" "no") (or hash "-")))))
    (let ((tree (org-element-parse-buffer)))
      (org-element-map tree 'table
        (lambda (tb)
          (let ((rows 0) (cols 0))
            (org-element-map tb 'table-row
              (lambda (r)
                (when (eq (org-element-property :type r) 'standard)
                  (setq rows (1+ rows))
                  (setq cols (max cols (length (org-element-contents r)))))))
            (princ (format "table %d %d\n" rows cols)))))
      (org-element-map tree 'link
        (lambda (l)
          (when (string= (org-element-property :type l) "file")
            (let ((path (org-element-property :path l)))
              (princ (format "file-link %s %s\n" path
                             (if (file-exists-p (expand-file-name path (file-name-directory (expand-file-name file))))
                                 "exists" "missing")))))))
      (org-element-map tree 'headline
        (lambda (h)
          (princ (format "headline %d %s\n"
                         (org-element-property :level h)
                         (org-element-property :raw-value h))))))))
