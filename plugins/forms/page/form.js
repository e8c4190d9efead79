// Public form page: checks each field as the server does, sends the form as JSON, and shows the
// server's answer: the success message, or each error next to its field.
'use strict';
(function () {
  var form = document.getElementById('public-form');
  if (!form) return;
  var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  var PHONE = /^\+?[0-9][0-9 ().-]{2,31}$/;
  var DATE = /^\d{4}-\d{2}-\d{2}$/;
  var TEXT = ['text', 'textarea', 'email', 'url', 'phone', 'lookup'];
  var NUMBER = ['integer', 'number', 'currency', 'percent'];
  var boxes = Array.prototype.slice.call(form.querySelectorAll('[data-field]'));
  var general = document.getElementById('form-error');
  var success = document.getElementById('form-success');
  var button = form.querySelector('button[type="submit"]');

  function boxOf(name) {
    for (var i = 0; i < boxes.length; i++) if (boxes[i].getAttribute('data-field') === name) return boxes[i];
    return null;
  }
  function controlOf(box) { return box.querySelector('input, textarea, select'); }

  function setError(name, message) {
    var box = boxOf(name);
    if (!box) return false;
    var el = document.getElementById('f-' + name + '-error');
    el.textContent = message;
    el.hidden = false;
    box.querySelectorAll('input, textarea, select').forEach(function (c) { c.setAttribute('aria-invalid', 'true'); });
    box.classList.add('invalid');
    return true;
  }

  function clearErrors() {
    boxes.forEach(function (box) {
      var el = document.getElementById('f-' + box.getAttribute('data-field') + '-error');
      el.textContent = '';
      el.hidden = true;
      box.classList.remove('invalid');
      box.querySelectorAll('[aria-invalid]').forEach(function (c) { c.removeAttribute('aria-invalid'); });
    });
    general.textContent = '';
    general.hidden = true;
  }

  function readValue(box) {
    var type = box.getAttribute('data-type');
    if (type === 'multiselect') {
      return Array.prototype.map.call(box.querySelectorAll('input:checked'), function (i) { return i.value; });
    }
    var control = controlOf(box);
    if (type === 'boolean') return control.checked;
    if (control.validity && control.validity.badInput) return undefined;
    var raw = control.value;
    if (raw === '') return null;
    if (NUMBER.indexOf(type) >= 0) return Number(raw);
    if (type === 'datetime') {
      var d = new Date(raw);
      return isNaN(d.getTime()) ? raw : d.toISOString();
    }
    return raw;
  }

  // The server's checks, with its messages (plugins/forms/validateSubmission.ts).
  function problemOf(box, value) {
    var type = box.getAttribute('data-type');
    var required = box.getAttribute('data-required') === 'true';
    if (value === undefined) return type === 'date' ? 'must be a date YYYY-MM-DD' : 'must be a number';
    if (value === null || (Array.isArray(value) && value.length === 0)) return required ? 'is required' : null;
    if (TEXT.indexOf(type) >= 0) {
      var max = Number(box.getAttribute('data-max-length'));
      if (max && value.length > max) return 'must be at most ' + max + ' characters';
      if (type === 'email' && !EMAIL.test(value)) return 'must be an email address';
      if (type === 'phone' && !PHONE.test(value)) return 'must be a phone number (digits, spaces, + ( ) . -)';
      if (type === 'url') {
        try {
          var url = new URL(value);
          if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
        } catch (e) {
          return 'must be an absolute URL';
        }
      }
      return null;
    }
    if (NUMBER.indexOf(type) >= 0) {
      if (!isFinite(value)) return 'must be a number';
      if (type === 'integer' && Math.floor(value) !== value) return 'must be a whole number';
      var min = box.getAttribute('data-min');
      var top = box.getAttribute('data-max');
      if (min !== null && value < Number(min)) return 'must be at least ' + min;
      if (top !== null && value > Number(top)) return 'must be at most ' + top;
      return null;
    }
    if (type === 'date' && !DATE.test(value)) return 'must be a date YYYY-MM-DD';
    return null;
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    clearErrors();
    var body = {};
    var first = null;
    boxes.forEach(function (box) {
      var name = box.getAttribute('data-field');
      var value = readValue(box);
      var problem = problemOf(box, value);
      if (problem) {
        setError(name, problem);
        if (!first) first = box;
      } else if (value !== null && !(Array.isArray(value) && value.length === 0)) {
        body[name] = value;
      }
    });
    var trap = form.querySelector('[data-honeypot]');
    if (trap && trap.value !== '') body[trap.name] = trap.value;
    if (first) {
      general.textContent = 'Please correct the fields marked below.';
      general.hidden = false;
      controlOf(first).focus();
      return;
    }
    button.disabled = true;
    fetch(form.getAttribute('data-submit-url'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (data) {
        if (res.status === 201) {
          form.hidden = true;
          success.textContent = (data && data.message) || success.getAttribute('data-default');
          success.hidden = false;
          success.focus();
          return;
        }
        var error = (data && data.error) || {};
        var list = error.details && Array.isArray(error.details.errors) ? error.details.errors : [];
        var shown = null;
        list.forEach(function (item) {
          var name = String(item.path || '').split(/[./]/)[0];
          if (setError(name, String(item.message)) && !shown) shown = boxOf(name);
        });
        if (res.status === 429) general.textContent = 'Too many submissions: try again in ' + (error.details && error.details.retryAfter) + ' seconds.';
        else if (shown) general.textContent = 'Please correct the fields marked below.';
        else general.textContent = error.message || 'The form could not be sent (status ' + res.status + ').';
        general.hidden = false;
        if (shown) controlOf(shown).focus();
      });
    }).catch(function () {
      general.textContent = 'The form could not be sent: check your connection and try again.';
      general.hidden = false;
    }).then(function () {
      button.disabled = false;
    });
  });
})();
